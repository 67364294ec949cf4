"""Output that fits: one why per rule with its targets folded into ranges,
every line within 80 columns, `--verbose` keeping each change in full, and
the JSON untouched by any of it. Planned on a synthetic Superdome-X-shaped
host (16 3PAR LUNs x 4 paths under dm-multipath, bench/make_host.py)."""
import json
import re
import sys

import pytest

from conftest import REPO
from numatune.report.grouped import elide, ranges, targets_text

sys.path.insert(0, str(REPO / "bench"))
from make_host import make_host  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def sdx(tmp_path_factory):
    root = tmp_path_factory.mktemp("sdx") / "root"
    make_host(str(root), sockets=16, nodes=8, cpus=64, luns=16, paths=4, nics=2, queues=2, instances=1, procs=40)
    return root


@pytest.mark.parametrize("names, folded", [
    (["sdb", "sdc", "sdd", "sdq"], ["sdb-sdd", "sdq"]),
    (["sdz", "sdaa", "sdab"], ["sdz-sdab"]),
    (["dm-0", "dm-1", "dm-2", "dm-7"], ["dm-0..dm-2", "dm-7"]),
    (["eth0", "ens3f0", "eth1"], ["eth0-eth1", "ens3f0"]),
    (["node01", "node02"], ["node01", "node02"]),       # zero-padded: not guessed as a range
    (["kernel.numa_balancing"], ["kernel.numa_balancing"]),
])
def test_ranges(names, folded):
    assert ranges(names) == folded


def test_targets_are_grouped_by_attribute():
    targets = ["sd%s queue/nr_requests" % c for c in "bcdefghijklmnopq"] + ["dm-%d queue/nr_requests" % i
                                                                            for i in range(4)]
    assert targets_text(targets) == "sdb-sdq, dm-0..dm-3 queue/nr_requests"
    assert targets_text(["/etc/a.conf: x", "/etc/a.conf: y"]) == "/etc/a.conf: x, /etc/a.conf: y"


def test_elide_keeps_both_ends_of_a_long_value():
    rule = 'ACTION=="add|change", SUBSYSTEM=="block", ' + "x" * 200 + ', ATTR{queue/rotational}="0"'
    short = elide(rule, 60)
    assert len(short) == 60 and short.startswith('ACTION=="add') and short.endswith('ATTR{queue/rotational}="0"')


def test_one_why_per_rule_and_every_line_fits(cli, sdx):
    status, text, _ = cli("plan", "--root", sdx)
    doc = json.loads(cli("plan", "--root", sdx, "--format", "json")[1])
    assert status == 0 and len(doc["changes"]) > 150
    lines = text.splitlines()
    assert all(len(ANSI.sub("", line)) <= 80 for line in lines), [x for x in lines if len(x) > 80]
    # A screenful per area: a tenth of the changes' count in lines, not four lines each.
    assert len(lines) < len(doc["changes"]) // 2
    whys = {c["why"] for c in doc["changes"] if c["why"]}
    for why in whys:
        first_words = " ".join(why.split()[:6])
        assert text.count("why: " + first_words) == 1, why
    # Every rule that changes something is named, and the per-device counts add up.
    for rule in {c["rule"] for c in doc["changes"]}:
        assert "  %s\n" % rule in text
    counted = sum(int(n) for n in re.findall(r"(\d+) targets:", text))
    singles = len(re.findall(r"^    (live|persistent|boot) +(?=\S)(?!\d+ targets:)", text, re.M))
    assert counted + singles == len(doc["changes"])


def test_verbose_keeps_every_change_in_full_and_json_is_unchanged(cli, sdx):
    brief = json.loads(cli("plan", "--root", sdx, "--format", "json")[1])
    verbose_json = json.loads(cli("plan", "--root", sdx, "--format", "json", "--verbose")[1])
    assert brief == verbose_json
    text = cli("plan", "--root", sdx, "--verbose")[1]
    flat = " ".join(line.strip() for line in text.splitlines())
    for c in brief["changes"]:
        assert c["target"].split(":")[0] in flat
    assert all(len(line) <= 80 for line in text.splitlines())
    long_value = max((c["desired"] for c in brief["changes"]), key=len)
    assert len(long_value) > 200 and long_value.replace(" ", "") in flat.replace(" ", "")


def test_apply_names_what_waits_for_a_reboot_or_restart(cli, sdx, tmp_path):
    import shutil
    root = tmp_path / "copy"
    shutil.copytree(sdx, root, symlinks=True)
    plan = json.loads(cli("plan", "--root", root, "--format", "json")[1])
    reboot = [c for c in plan["changes"] if c["reboot_required"]]
    restart = [c for c in plan["changes"] if c["restart_required"]]
    assert reboot and restart
    status, out, err = cli("apply", "--root", root, "--yes")
    assert status == 0, err
    after = out.split("applied and verified.")[1]
    # The survives-a-reboot table (issue #37): each setting's row says what waits, and for what.
    table = after.split("what survives a reboot:\n")[1]
    for c, word in [(c, "reboot") for c in reboot] + [(c, "restart") for c in restart]:
        assert re.search(r"^  %s +\S*%s" % (re.escape(c["rule"]), word), table, re.M), (c["rule"], table)
    # A command to copy (with a long --root) and the txid line scripts read are not wrapped.
    assert all(len(line) <= 80 for line in out.splitlines()
               if not line.startswith(("undo with:", "transaction ", "next:")))
    assert cli("revert", "--last", "--root", root)[0] == 0


def test_plan_diff_shows_exactly_what_apply_writes(cli, sdx, tmp_path):
    """Every file the diff shows ends up, after a real apply, byte for byte as
    the diff's new side; and no file apply edits is missing from the diff."""
    import shutil
    from conftest import tree_digest
    from numatune.report.diff import file_edits
    from numatune import engine
    from numatune.root import Root
    root = tmp_path / "copy"
    shutil.copytree(sdx, root, symlinks=True)
    before = tree_digest(root)
    status, out, _ = cli("plan", "--root", root, "--diff")
    assert status == 0 and tree_digest(root) == before  # planning wrote nothing
    # The host runs tuned (throughput-performance): sysctls persist through numatune's child profile (#24).
    for path in ("/etc/tuned/numatune/tuned.conf", "/etc/udev/rules.d/90-numatune.rules", "/etc/multipath.conf",
                 "/etc/default/grub"):
        assert ("+++ b" + path) in out
    assert "+kernel.numa_balancing=0\n" in out and "+# BEGIN numatune managed section" in out
    r = Root(str(root))
    plan, _ = engine.make_plan(r, engine.load_policy([], r))
    edits = file_edits(r, plan.changes)
    assert cli("apply", "--root", root, "--yes")[0] == 0
    after = tree_digest(root)
    changed_files = {"/" + p for p, v in after.items() if v[0] == "file" and before.get(p) != v}
    assert {p for p, _, _ in edits} == {p for p in changed_files if not p.startswith(("/sys/", "/proc/"))}
    for path, _, new in edits:
        assert (root / path.lstrip("/")).read_bytes() == new
    assert cli("revert", "--last", "--root", root)[0] == 0


def test_diff_is_for_text_output(cli, sdx):
    status, out, err = cli("plan", "--root", sdx, "--diff", "--format", "json")
    assert status == 2 and out == "" and "--diff is for text output" in err
