"""What apply says (issue #37): on a giant host the writes are folded per rule
(`-v` lists each), and the result ends with what survives a reboot: for each
setting, whether it is set now or waits for a reboot or a restart, and the
mechanism the plan names for it at boot (the `persisted by` of `check`), or
"live only: lost at reboot"; then the next step."""
import json
import re
import shutil
import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from make_host import make_host  # noqa: E402


@pytest.fixture(scope="module")
def giant(tmp_path_factory):
    root = tmp_path_factory.mktemp("giant") / "root"
    # 240 CPUs: a cpufreq policy each, as the Superdome X capture of the issue had.
    make_host(str(root), sockets=8, nodes=8, cpus=240, luns=16, paths=4, nics=2, queues=2, instances=1, procs=40)
    return root


@pytest.fixture
def host(giant, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(giant, root, symlinks=True)
    return root


def _table(out):
    tail = out.split("what survives a reboot:\n", 1)
    assert len(tail) == 2, out
    return tail[1]


def test_apply_on_a_giant_host_fits_a_screen_and_ends_with_the_reboot_table(cli, host):
    plan = json.loads(cli("plan", "--root", host, "--policy", "superdome-oracle", "--format", "json")[1])
    writes = sum(len(c["writes"]) for c in plan["changes"])
    assert writes > 400  # 240 governors, 160 queue attributes...
    status, out, err = cli("apply", "--root", host, "--policy", "superdome-oracle", "--yes")
    assert status == 0, err
    lines = out.splitlines()
    assert len(lines) < 60, out
    assert "scaling_governor" not in out.replace("scaling_governor (", "")  # no line per CPU
    assert all(len(line) <= 80 for line in lines if not line.startswith(("undo with:", "transaction ", "next:")))
    table = _table(out)
    # Every policy key that changed has its row; the next step is last.
    named = " ".join(table.split()).replace(",", " ").split()
    for rule in {c["rule"] for c in plan["changes"]}:
        assert rule in named, (rule, table)
    assert lines[-1].startswith("next: reboot, then numatune check"), lines[-1]
    # The mechanisms are the plan's own: check, run now, names the same ones.
    check = json.loads(cli("check", "--root", host, "--policy", "superdome-oracle", "--format", "json")[1])
    rules = {c["rule"] for c in plan["changes"]}
    flat = " ".join(table.split())
    # Those of the settings this apply changed (numa=off was already absent: not a row).
    changed = [r["persisted_by"] for r in check["results"] if r.get("persisted_by")
               and ("sysctl." + r["subject"] in rules or r["id"] == "block.udev")]
    assert len(changed) >= 5, check["results"]
    for by in changed:
        # One row per file: the line each setting is on is check's detail.
        assert re.sub(r":\d+\)", ")", re.sub(r":\d+$", "", " ".join(by.split()))) in flat, (by, table)
    # What waits for a reboot says so, never cut mid-word.
    assert re.search(r"^  kernel\.transparent_hugepage +now\+reboot ", table, re.M), table
    assert "..." not in table.split("next:")[0].replace("(...)", "")


def test_a_live_only_setting_says_it_is_lost_at_reboot(cli, host, tmp_path):
    policy = tmp_path / "p.toml"
    policy.write_text('[cpu]\ngovernor = "performance"\n')
    status, out, err = cli("apply", "--root", host, "--policy", policy, "--yes", "--live-only")
    assert status == 0, err
    table = _table(out)
    assert re.search(r"^  cpu\.governor +now +live only: lost at reboot", table, re.M), table
    assert out.splitlines()[-1].startswith("next: numatune check"), out


def test_verbose_lists_every_write(cli, host):
    status, out, err = cli("apply", "--root", host, "--policy", "superdome-oracle", "--yes", "-v")
    assert status == 0, err
    assert out.count("wrote /sys/devices/system/cpu/cpufreq/") == 240 or out.count("scaling_governor:") >= 240
    assert "what survives a reboot:" in out
