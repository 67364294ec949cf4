"""One way to say each thing, in every command and the review screen: the
history order (newest first), the severity spelling, ``(unset)``, the arrow,
change and write counts that agree between apply's prompt, its result and
revert; digit groups for big counts in text (never in JSON)."""
import io
import json
import re
import shutil
import types

import pytest

from conftest import REPO, write
from tui_support import make_app, run, settle
from numatune.apply.journal import list_transactions
from numatune.model import Change, Finding, Plan, Write
from numatune.report import compliance
from numatune.report.console import newest_first, plan_text, summary_line
from numatune.report.grouped import ARROW, SEVERITY
from numatune.report.text import render as check_text

CAPTURE = "16amd64-4n4c-cgroup-distance-merge"
POLICY = '[policy]\nname = "vocab"\n\n[sysctl]\n"kernel.numa_balancing" = 0\n"vm.zone_reclaim_mode" = 0\n'


@pytest.fixture
def host(capture, tmp_path):
    root = capture(CAPTURE)
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n")
    return root, write(tmp_path, "p.toml", POLICY)


def _apply(cli, root, policy):
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err
    return re.search(r"^transaction (\S+): ", out, re.M).group(1), out


def test_history_is_newest_first_in_the_cli_and_the_review_screen(cli, host):
    root, policy = host
    first, _ = _apply(cli, root, policy)
    assert cli("revert", first, "--root", root)[0] == 0
    second, _ = _apply(cli, root, policy)
    # One row each; the indented line under it is who ran it, where, how (issue #37).
    out = [line for line in cli("history", "--root", root)[1].splitlines() if not line.startswith(" ")]
    assert out[1].startswith(second) and out[2].startswith(first), out
    # JSON keeps the journal's order (oldest first), as --help says.
    assert [t["txid"] for t in json.loads(cli("history", "--root", root, "--format", "json")[1])] == [first, second]
    assert "newest first" in cli("history", "--help")[1]

    app = make_app(root, policy)

    async def go():
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            await pilot.press("h")
            await settle(app, pilot)
            assert [t.txid for t in app.screen.transactions] == [second, first]
    run(go())


def test_newest_first_sorts_by_txid_not_by_arrival():
    txs = [types.SimpleNamespace(txid=t) for t in ("20260102T000000-1", "20251231T235959-2", "20260101T120000-3")]
    assert [t.txid for t in newest_first(txs)] == ["20260102T000000-1", "20260101T120000-3", "20251231T235959-2"]


def test_one_severity_spelling_in_plan_check_and_review_screen():
    from numatune_tui import rows
    from numatune.families.tuned.knob import rivals
    plan = Plan(host={"hostname": "h"}, changes=[], findings=[
        Finding(id="a", severity="warning", message="warned", area="kernel"),
        Finding(id="b", severity="critical", message="broken", area="kernel"),
        Finding(id="tuned.conflict:x", severity="warning", message="tuned profile p sets vm.x", area="memory",
                rule="sysctl.vm.y", target="/usr/lib/tuned/p/tuned.conf")])
    text = plan_text(plan)
    report = compliance.build(plan, {}, policy_name="p")
    checked = check_text(report, plain=True)
    for label in ("WARNING", "CRITICAL"):
        assert label in text and label in checked
    assert not re.search(r"\b(WARN|CRIT)\b", text + checked)
    assert rows.SEVERITY_SHORT == SEVERITY
    change = Change(id="sysctl.live:vm.x", area="memory", target="/proc/sys/vm/x", current="1", desired="0",
                    scope="live", action="write", rule="sysctl.vm.x",
                    writes=[Write(kind="value", path="/proc/sys/vm/x")])
    assert rivals(change, plan, {}) == ["WARNING: tuned profile p sets vm.x"]


def test_unset_and_empty_read_the_same_everywhere(cli, host):
    from numatune.apply.value import describe
    from numatune_tui.rows import value_text
    assert describe({"path": "/sys/x", "before": None, "after": ""}) == '/sys/x: (unset) -> ""'
    assert value_text(None) == "(unset)" and value_text("") == '""'
    plan = Plan(host={}, changes=[Change(id="c", area="kernel", target="/etc/x", current=None, desired="",
                                         scope="persistent", action="write")])
    assert "(unset) -> \"\"" in plan_text(plan) and "None" not in plan_text(plan)
    report = compliance.build(plan, {}, policy_name="p")
    assert '/etc/x: (unset) -> ""' in check_text(report, plain=True)
    root, policy = host
    txid, _ = _apply(cli, root, policy)
    shown = cli("history", txid, "--root", root)[1] + cli("history", "--root", root)[1]
    assert "None" not in shown


def test_one_arrow_in_every_text_the_cli_and_the_review_screen_print(cli, host):
    from numatune_tui import rows
    root, policy = host
    outs = [cli("plan", "--root", root, "--policy", policy)[1]]
    txid, applied = _apply(cli, root, policy)
    outs += [applied, cli("history", txid, "--root", root)[1], cli("revert", txid, "--root", root)[1]]
    for out in outs:
        assert "\u2192" not in out
        assert ARROW in out, out
    assert any(ARROW in column[0] for column in rows.COLUMNS)


def test_prompt_result_and_revert_count_the_same_changes_and_writes(cli, tmp_path, monkeypatch, capsys):
    from numatune import commands
    case = REPO / "tests" / "cases" / "boot" / "cmdline-grub2-legacy"
    root, policy = tmp_path / "root", case / "policy.toml"
    shutil.copytree(case / "root", root, symlinks=True)
    plan = json.loads(cli("plan", "--root", root, "--policy", policy, "--format", "json")[1])
    changes, writes = len(plan["changes"]), sum(len(c["writes"]) for c in plan["changes"])
    assert writes > changes  # one cmdline change edits two files: agreeing means something
    counted = "%d change(s), %d write(s)" % (changes, writes)

    class Tty(io.StringIO):
        def isatty(self):
            return True
    monkeypatch.setattr("sys.stdin", Tty("n\n"))
    args = types.SimpleNamespace(yes=False)
    planned = [Change.from_json(c) for c in plan["changes"]]
    assert commands._confirm(args, planned) is False
    before = "%d change(s), %d planned write(s)" % (changes, writes)
    assert "Apply these %s? [y/N]" % before in capsys.readouterr().out
    from numatune_tui.apply_screen import confirm_text
    assert str(confirm_text(planned)).startswith(before + ",")  # the review screen's dialog

    # The edits of one file are one write (#28): the result, history and revert count the writes
    # made, and the result says how the planned ones were merged.
    edits = [w["path"] for c in plan["changes"] for w in c["writes"] if w["kind"] == "file"]
    made = writes - len(edits) + len(set(edits))
    assert made < writes
    counted = "%d change(s), %d write(s)" % (changes, made)
    txid, applied = _apply(cli, root, policy)
    assert "transaction %s: %s applied and verified." % (txid, counted) in applied
    assert "%d planned write(s) made as %d:" % (writes, made) in " ".join(applied.split()), applied
    assert "%s, %s" % ("applied", counted) in cli("history", txid, "--root", root)[1]
    reverted = cli("revert", txid, "--root", root)[1]
    assert "transaction %s: %s: %d restored, 0 left alone, 0 failed." % (txid, counted, made) in reverted


def test_big_counts_are_grouped_in_text_and_raw_in_json():
    many = [Change(id="c%d" % i, area="storage", target="sd%d queue/nr_requests" % i, current="256",
                   desired="1024", scope="live", action="write", rule="block.nr_requests") for i in range(1500)]
    plan = Plan(host={}, changes=many, findings=[])
    assert summary_line(plan).startswith("1,500 changes")
    assert "storage (1,500 changes)" in plan_text(plan)
    assert "1,500 targets" in plan_text(plan) or "1500 targets" in plan_text(plan)
    report = compliance.build(plan, {}, policy_name="p")
    assert "1,500 critical" in check_text(report, plain=True)
    assert json.loads(json.dumps(plan.to_json()))["changes"][0]["desired"] == "1024"  # values never grouped


def test_a_kernel_value_keeps_its_digits(cli, host, tmp_path):
    root, _ = host
    write(root, "/proc/sys/kernel/shmmax", "18446744073692774399\n")
    policy = write(tmp_path, "shm.toml", '[sysctl]\n"kernel.shmmax" = 4398046511104\n')
    out = cli("plan", "--root", root, "--policy", policy)[1]
    assert "18446744073692774399 -> 4398046511104" in out  # what is written is shown as written


def test_the_result_says_why_it_journaled_fewer_writes_than_planned():
    from numatune.report.console import unjournaled_line
    assert unjournaled_line(5, 5) is None
    assert unjournaled_line(1500, 1498) == \
        "2 of the 1,500 planned write(s) found their target already as wanted (not journaled)"
