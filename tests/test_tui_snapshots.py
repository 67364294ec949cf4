"""The review screens pinned as SVG snapshots at 80x24, 120x40 and 160x50
(pytest-textual-snapshot). Inputs are fixed: a fake plan of real model
objects for host db01, journals with fixed txids and times, no cursor blink.
After an intended change of the look: pytest --snapshot-update, then review
the SVGs in tests/__snapshots__/ before committing them."""
import pytest

from tui_support import fake_plan, make_app

from numatune.apply.journal import Journal

SIZES = [(80, 24), (120, 40), (160, 50)]
IDS = ["80x24", "120x40", "160x50"]


async def _loaded(pilot):
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def _plan_app(tmp_path):
    root = tmp_path / "db01"
    root.mkdir()
    plan = fake_plan(40)
    return make_app(root, plan_source=lambda: (plan, {}))


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_plan_screen(snap_compare, tmp_path, size):
    assert snap_compare(_plan_app(tmp_path), terminal_size=size, run_before=_loaded)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_plan_screen_persistent_change_with_diff(snap_compare, tmp_path, size):
    assert snap_compare(_plan_app(tmp_path), press=["down"], terminal_size=size, run_before=_loaded)


def test_plan_screen_search_and_findings(snap_compare, tmp_path):
    assert snap_compare(_plan_app(tmp_path), press=["slash", *"knob_00", "enter", "v"], terminal_size=(80, 24),
                        run_before=_loaded)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_confirm_apply(snap_compare, tmp_path, size):
    assert snap_compare(_plan_app(tmp_path), press=["a"], terminal_size=size, run_before=_loaded)


def _journal(root):
    changes = fake_plan(3).changes
    applied = Journal(root, "20261121T101500-000001-4194304").open()
    applied.append({"t": "begin", "txid": "20261121T101500-000001-4194304", "time": "2026-11-21T10:15:00+00:00",
                    "command": "review", "root": str(root), "policy": {},
                    "changes": [c.to_json() for c in changes]})
    for seq, c in enumerate(changes, 1):
        w = c.writes[0]
        op = ({"kind": "value", "path": w.path, "format": "plain", "before": c.current, "after": c.desired}
              if w.kind == "value" else
              {"kind": "file", "path": w.path, "editor": w.editor, "before": {"exists": False},
               "after": {"exists": True, "sha256": "0" * 64, "data": ""}, "created_dirs": []})
        applied.append({"t": "intent", "seq": seq, "change": c.id, "op": op})
        applied.append({"t": "done", "seq": seq})
    applied.append({"t": "commit", "time": "2026-11-21T10:15:01+00:00"})
    applied.close()
    failed = Journal(root, "20261120T090000-000002-4242").open()
    failed.append({"t": "begin", "txid": "20261120T090000-000002-4242", "time": "2026-11-20T09:00:00+00:00",
                   "command": "apply", "root": str(root), "policy": {}, "changes": [changes[0].to_json()]})
    failed.append({"t": "undo-begin", "reason": "rollback", "time": "2026-11-20T09:00:01+00:00"})
    failed.append({"t": "undo-end", "reason": "rollback", "time": "2026-11-20T09:00:01+00:00",
                   "skipped": 0, "failed": 0})
    failed.close()


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_history_screen(snap_compare, tmp_path, size):
    app = _plan_app(tmp_path)
    _journal(app.root)
    assert snap_compare(app, press=["h"], terminal_size=size, run_before=_loaded)
