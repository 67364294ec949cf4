"""No false "all clear" on the terminal or to a monitor: `--only` takes the
areas rules carry (or a family's name) and refuses to check nothing, a
misspelt sysctl is a warning with a suggestion, and the summary says "the
host matches the policy" only when nothing is unmet."""
import json
import os
import re

import pytest

from conftest import tree_digest, write
from numatune.model import Change, Finding, Plan
from numatune.report.console import summary_line

CAPTURE = "16amd64-4n4c-cgroup-distance-merge"
POLICY = """
[sysctl]
"kernel.numa_balancing" = 0
"""


@pytest.fixture
def host(capture, tmp_path):
    root = capture(CAPTURE)
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    return root, write(tmp_path, "policy.toml", POLICY)


def test_only_sysctl_selects_the_sysctl_family_and_check_sees_the_drift(cli, host):
    root, policy = host
    status, out, _ = cli("check", "--root", root, "--policy", policy, "--only", "sysctl", "--format", "nagios")
    assert status == 2 and out.startswith("NUMATUNE CRITICAL"), out
    status, out, _ = cli("plan", "--root", root, "--policy", policy, "--only", "sysctl", "--format", "json")
    ids = {c["id"] for c in json.loads(out)["changes"]}
    assert status == 0 and "sysctl.live:kernel.numa_balancing" in ids


def test_every_offered_area_is_one_a_rule_carries_or_a_family():
    from numatune.families.registry import FAMILIES, selectors
    from numatune.cli import build_parser
    carried = {a for f in FAMILIES for a in f.areas} | {f.name for f in FAMILIES}
    assert set(selectors()) == carried
    # The help text offers exactly these.
    sub = next(a for a in build_parser()._actions if getattr(a, "choices", None) and "check" in a.choices)
    only = next(a for a in sub.choices["check"]._actions if "--only" in a.option_strings)
    offered = only.help.split(": ", 1)[1].split(" (")[0].split(", ")
    assert offered == list(selectors())


@pytest.mark.parametrize("fmt", ["nagios", "text", "json", "prometheus", "junit"])
def test_an_only_that_selects_nothing_is_unknown_not_ok(cli, host, fmt):
    root, policy = host
    status, out, err = cli("check", "--root", root, "--policy", policy, "--only", "storage", "--format", fmt)
    assert status == 3
    assert "selects nothing" in out + err
    if fmt in ("nagios", "text"):
        assert out.startswith("numatune UNKNOWN") or out.startswith("NUMATUNE UNKNOWN"), out


def test_plan_with_an_only_that_selects_nothing_is_a_usage_error(cli, host):
    root, policy = host
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--only", "sysctl", "--only", "oracle")
    assert status == 2 and out == ""
    assert err.startswith("numatune: --only oracle selects nothing") and len(err.strip().splitlines()) == 1


def test_an_unknown_area_gets_did_you_mean(cli, host):
    root, policy = host
    status, _, err = cli("plan", "--root", root, "--policy", policy, "--only", "sysctls")
    assert status == 2 and "did you mean 'sysctl'" in err


@pytest.mark.parametrize("key, guess", [("kernel.numa_balancng", "kernel.numa_balancing"),
                                        ("vm.zone_reclaim_mod", "vm.zone_reclaim_mode"),
                                        ("kernal.numa_balancing", "kernel.numa_balancing"),
                                        ("kernel.numa_balancnig", "kernel.numa_balancing")])
def test_a_sysctl_one_edit_from_a_known_key_is_a_policy_error(cli, host, tmp_path, key, guess):
    # #36: a typo must not let apply write every other key first: exit 2, one line, before anything is read.
    root, _ = host
    policy = write(tmp_path, "typo.toml", '[sysctl]\n"kernel.numa_balancing" = 0\n"%s" = 0\n' % key)
    before = tree_digest(root)
    for args in (["plan"], ["apply", "--yes"], ["apply", "--yes", "--persistent-only"]):
        status, out, err = cli(*args, "--root", root, "--policy", policy)
        assert status == 2 and out == "", (args, out, err)
        assert err.splitlines() == ["numatune: %s:3: unknown sysctl key %r (did you mean %r?) (neither this "
                                    "kernel nor numatune knows it; fix the key's spelling)" % (policy, key, guess)]
    assert tree_digest(root) == before


def test_a_sysctl_farther_from_a_known_key_is_critical_with_did_you_mean(cli, host, tmp_path):
    # #25: two edits or more may be a key of another kernel: a critical finding (apply cannot meet the
    # policy and exits 1 naming it), with the likeliest key.
    root, _ = host
    key = "kernel.numa_balanse"
    policy = write(tmp_path, "typo.toml", '[sysctl]\n"%s" = 0\n' % key)
    status, out, _ = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    finding = {f["id"]: f for f in json.loads(out)["findings"]}["sysctl.unknown:" + key]
    assert finding["severity"] == "critical" and "did you mean kernel.numa_balancing?" in finding["message"]
    assert cli("check", "--root", root, "--policy", policy, "--format", "nagios")[0] == 2
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 1 and "the policy is not met: sysctl.unknown:" + key in err


def test_did_you_mean_reads_the_roots_proc_sys(cli, host, tmp_path):
    """A key this kernel has but the built-in list lacks is suggested from /proc/sys."""
    root, _ = host
    write(root, "/proc/sys/kernel/numatune_test_knob", "1\n")
    policy = write(tmp_path, "typo.toml", '[sysctl]\n"kernel.numatune_test_knb" = 0\n')
    status, _, err = cli("plan", "--root", root, "--policy", policy)
    assert status == 2 and "did you mean 'kernel.numatune_test_knob'?" in err
    policy = write(tmp_path, "far.toml", '[sysctl]\n"kernel.numatune_tst_kb" = 0\n')
    out = cli("plan", "--root", root, "--policy", policy, "--format", "json")[1]
    message = json.loads(out)["findings"][0]["message"]
    assert "did you mean kernel.numatune_test_knob?" in message


def test_a_known_key_the_kernel_lacks_stays_info(cli, host, tmp_path):
    root, _ = host
    # 5.13 moved the sched_* tunables to debugfs: this kernel lacks it for sure
    # (without a version or a capture manifest the key would be "cannot tell").
    write(root, "/proc/sys/kernel/osrelease", "5.14.0-503.11.1.el9_5.x86_64\n")
    policy = write(tmp_path, "old.toml", '[sysctl]\n"kernel.sched_migration_cost_ns" = 5000000\n')
    out = cli("plan", "--root", root, "--policy", policy, "--format", "json")[1]
    (finding,) = json.loads(out)["findings"]
    assert finding["severity"] == "info" and finding["id"].startswith("sysctl.unsupported:")


def _plan(changes=(), findings=()):
    return Plan(host={}, changes=list(changes), findings=list(findings))


def _change(i, **kw):
    return Change(id="x.%d" % i, area="kernel", target="t%d" % i, current="1", desired="0", scope="live",
                  action="write", **kw)


@pytest.mark.parametrize("severity, pending, matches", [
    ("critical", False, False), ("warning", False, False), ("info", True, False), ("info", False, True)])
def test_matches_only_when_nothing_is_unmet(severity, pending, matches):
    line = summary_line(_plan(findings=[Finding(id="f", severity=severity, message="m", pending=pending)]))
    assert ("the host matches the policy" in line) == matches, line


def test_summary_counts_restarts_as_it_counts_reboots():
    line = summary_line(_plan([_change(1, reboot_required=True), _change(2, restart_required=True),
                               _change(3, restart_required=True)]))
    assert "3 changes (1 needs a reboot, 2 need a restart)" in line


def test_apply_names_what_waits_and_revert_says_the_undo_direction(cli, host, tmp_path):
    root, _ = host
    policy = write(tmp_path, "p.toml", POLICY + '"vm.zone_reclaim_mode" = 0\n')
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n")
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err
    # A command to copy (with a long --root) and the txid line scripts read are not wrapped.
    assert all(len(line) <= 80 for line in out.splitlines()
               if not line.startswith(("undo with:", "transaction ", "next:")))
    status, out, _ = cli("revert", "--last", "--root", root)
    assert status == 0
    assert "/proc/sys/kernel/numa_balancing: 0 -> 1 restored" in out
    assert "/proc/sys/vm/zone_reclaim_mode: 0 -> 1 restored" in out
    assert "undid /proc" not in out and "1 -> 0" not in out
    txid = re.search(r"transaction (\S+):", out).group(1)
    shown = cli("history", txid, "--root", root)[1]
    # One rendering of "unset" everywhere: the plan's, never Python's None.
    assert "None" not in shown and "(unset) -> 0" in shown


def test_root_takes_a_snapshot_archive_for_reading_only(cli, host, tmp_path):
    import subprocess
    from conftest import tree_digest
    root, policy = host
    archive = tmp_path / "host.tar.gz"
    status, out, _ = cli("snapshot", "--root", root, "--out", archive)
    assert status == 0 and "--root %s" % archive in out
    extracted = tmp_path / "by-tar"
    extracted.mkdir()
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(extracted)], check=True)
    by_tar = json.loads(cli("plan", "--root", extracted, "--policy", policy, "--format", "json")[1])
    status, out, err = cli("plan", "--root", archive, "--policy", policy, "--format", "json")
    assert status == 0, err
    direct = json.loads(out)
    for doc in (by_tar, direct):
        doc["host"].pop("root")
    assert direct == by_tar and direct["changes"]
    assert cli("check", "--root", archive, "--policy", policy, "--format", "nagios")[0] == 2
    assert cli("facts", "--root", archive, "--policy", policy)[0] == 0
    digest = tree_digest(tmp_path, ignore=())
    for command in (["apply", "--yes"], ["revert", "--last"], ["confirm"]):
        status, out, err = cli(*command, "--root", archive, *(["--policy", policy] if command[0] == "apply" else []))
        assert status == 2 and "snapshot archive" in err and "tar -xzf" in err, (command, err)
    assert tree_digest(tmp_path, ignore=()) == digest


def test_an_archive_cannot_write_outside_its_directory(tmp_path):
    import io
    import tarfile
    from numatune.snapshot import unpack
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        def add(name, data=b"x", link=None):
            info = tarfile.TarInfo(name)
            if link:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        add("etc/hostname", b"ok\n")
        add("../escaped")
        add("/abs")
        add("etc/out", link=str(tmp_path))
        add("etc/out/through-link")
    dest = unpack(str(archive))
    assert open(os.path.join(dest, "etc/hostname")).read() == "ok\n"
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "through-link").exists()
    assert oct(os.stat(dest).st_mode & 0o777) == "0o700"
