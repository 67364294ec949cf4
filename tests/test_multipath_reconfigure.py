"""multipath.conf and `multipathd reconfigure` as one journaled op (issue
#13), on a SAN copy that says it is live, with a stand-in multipathd
(block_fixture.stand_in_multipathd) that reloads the maps as the kernel does:
their read_ahead_kb and max_sectors_kb go back to the defaults. The real
daemon and kernel do the same in the lab (tests/lab/test_lab_storage.py)."""
import json
import sys

import pytest

from block_fixture import san_host, stand_in_multipathd
from conftest import LiveCopy, tree_digest, write

CONF = "defaults {\n\tuser_friendly_names yes\n}\n"
MAPS = '''
[[block]]
match = { vendor = "3PARdata", model = "VV", kind = "dm-multipath" }
read_ahead_kb = 4096
max_sectors_kb = 256
'''
SECTION = 'multipath = { rr_min_io_rq = 7 }\n'


@pytest.fixture
def live(tmp_path, monkeypatch):
    from numatune.rootfs import given
    root = tmp_path / "root"
    san_host(root, luns=2, paths=2, multipath_conf=CONF)
    calls = stand_in_multipathd(root, tmp_path / "mpd", monkeypatch.setenv)
    monkeypatch.setattr(given, "Root", LiveCopy)
    # The copy's devices from its sysfs files, not from this machine's udev.
    monkeypatch.setitem(sys.modules, "pyudev", None)
    return root, calls, tmp_path / "mpd"


def _run(cli, root, *args):
    return cli(*(args + ("--root", str(root))))


def _plan(cli, root, policy):
    status, out, err = _run(cli, root, "plan", "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def _maps(root, attr):
    return {d: (root / "sys/block" / d / "queue" / attr).read_text().strip() for d in ("dm-0", "dm-1")}


def test_the_reconfigure_comes_before_the_maps_queue_writes(cli, tmp_path, live):
    """The plan's first storage change is multipath.conf with its reconfigure; every map queue write follows."""
    root, calls, _ = live
    plan = _plan(cli, root, write(tmp_path, "p.toml", MAPS + SECTION))
    ids = [c["id"] for c in plan["changes"]]
    assert ids[0] == "block.multipath", ids
    assert {"block.live:dm-0:read_ahead_kb", "block.live:dm-1:max_sectors_kb"} <= set(ids[1:])
    (mp,) = plan["changes"][0]["writes"]
    assert (mp["kind"], mp["argv"]) == ("multipath", ["/usr/sbin/multipathd", "reconfigure"])
    assert "reconfigure" in plan["changes"][0]["action"] and not plan["changes"][0]["restart_required"]


def test_apply_then_revert_puts_file_daemon_and_maps_back(cli, tmp_path, live):
    """apply: daemon runs the section and the maps keep 4096/256 after its reload; revert: file, daemon
    (reconfigured again) and the maps' queues exactly as before."""
    root, calls, mpd = live
    # Not the reload's default: a reload during revert must not leave it there.
    (root / "sys/block/dm-1/queue/read_ahead_kb").write_text("2048\n")
    policy = write(tmp_path, "p.toml", MAPS + SECTION)
    before = tree_digest(root)
    status, out, err = _run(cli, root, "apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    assert "rr_min_io_rq 7" in (mpd / "running").read_text()
    assert calls().count("reconfigure") == 1
    assert _maps(root, "read_ahead_kb") == {"dm-0": "4096", "dm-1": "4096"}
    assert _plan(cli, root, policy)["changes"] == []
    status, out, err = _run(cli, root, "revert", "--last")
    assert status == 0, out + err
    assert calls().count("reconfigure") == 2
    assert (mpd / "running").read_text() == CONF
    assert tree_digest(root) == before


def test_settings_an_earlier_run_made_survive_a_later_reconfigure(cli, tmp_path, live):
    """Maps set by one run, the multipath section added by the next: its reload would reset them; they stay."""
    root, calls, mpd = live
    first = write(tmp_path, "maps.toml", MAPS)
    status, out, err = _run(cli, root, "apply", "--yes", "--policy", first)
    assert status == 0, out + err
    second = write(tmp_path, "both.toml", MAPS + SECTION)
    assert [c["id"] for c in _plan(cli, root, second)["changes"]] == ["block.multipath"]
    status, out, err = _run(cli, root, "apply", "--yes", "--policy", second)
    assert status == 0, out + err  # verify re-reads the maps after the reload
    assert calls().count("reconfigure") == 1
    assert _maps(root, "read_ahead_kb") == {"dm-0": "4096", "dm-1": "4096"}
    assert _maps(root, "max_sectors_kb") == {"dm-0": "256", "dm-1": "256"}


def test_a_revert_cut_short_before_its_reconfigure_is_finished_by_the_next(cli, tmp_path, live, monkeypatch):
    """The file was restored, the reconfigure failed: the next revert finds the file as before and still
    makes the daemon read it."""
    from numatune.families.storage import multipath_write
    root, calls, mpd = live
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\n' + SECTION)
    status, out, err = _run(cli, root, "apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    real = multipath_write.reconfigure

    def broken(*args):
        raise OSError(5, "multipathd reconfigure failed (injected)")
    monkeypatch.setattr(multipath_write, "reconfigure", broken)
    status, out, err = _run(cli, root, "revert", "--last")
    assert status == 1 and "multipathd reconfigure failed" in out + err, out + err
    assert (root / "etc/multipath.conf").read_text() == CONF
    assert "rr_min_io_rq 7" in (mpd / "running").read_text()    # the daemon still runs it
    monkeypatch.setattr(multipath_write, "reconfigure", real)
    status, out, err = _run(cli, root, "revert", "--last")
    assert status == 0, out + err
    assert (mpd / "running").read_text() == CONF


def test_a_daemon_that_does_not_run_is_not_reconfigured(cli, tmp_path, live):
    """multipathd installed but stopped: the file alone (it is read at start), no command, nothing pending."""
    root, calls, mpd = live
    (mpd / "stopped").write_text("")
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\n' + SECTION)
    plan = _plan(cli, root, policy)
    (change,) = plan["changes"]
    assert change["writes"][0]["argv"] == [] and "not running" in change["action"]
    assert "block.multipath-reconfigure" not in [f["id"] for f in plan["findings"]]
    status, out, err = _run(cli, root, "apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    assert "reconfigure" not in calls()
    assert "rr_min_io_rq 7" in (root / "etc/multipath.conf").read_text()


def test_the_journal_reserves_room_for_the_files_bytes(tmp_path):
    """The op journals multipath.conf byte for byte (before and after, base64): apply reserves room for it."""
    from numatune.apply.transaction import _journal_estimate
    from numatune.model import Change, Write
    from numatune.root import Root
    write(tmp_path, "/etc/multipath.conf", "# site\n" * 4000)
    mp = Write(kind="multipath", path="/etc/multipath.conf", editor="multipath_section", args={"devices": []})
    change = Change(id="block.multipath", area="storage", target="", current=None, desired="", scope="persistent",
                    action="", writes=[mp])
    assert _journal_estimate(Root(str(tmp_path)), [change]) >= 3 * 28000
