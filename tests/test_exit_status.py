"""Severities and exit status that mean something: apply exits 1 when a
critical finding still stands (one line names it), a fix waiting for a reboot
is not a failure, `plan --exit-code` is git diff's, and a host where the
default policy has nothing to fix reaches `check` OK (this VM's own capture,
tests/data/this-vm: one node, no /boot)."""
import json
import shutil
from pathlib import Path

from conftest import install_numatune, write

VM = Path(__file__).parent / "data" / "this-vm"


def _check(cli, root, *extra):
    status, out, err = cli("check", "--root", root, "--format", "json", *extra)
    return status, {r["id"]: r for r in json.loads(out)["results"]}


def test_this_vm_reaches_check_ok_with_the_default_policy(tmp_path, cli):
    root = tmp_path / "vm"
    shutil.copytree(VM, root, symlinks=True)
    status, results = _check(cli, root)
    # THP at madvise is the one thing to fix, and a warning: only regions that ask get huge pages.
    assert status == 1, results
    assert results["thp.live"]["severity"] == "warning"
    # One node: the NUMA-only knobs cost nothing here; no /boot: nothing here boots the kernel.
    assert results["sysctl.persist:kernel.numa_balancing"]["severity"] == "info"
    assert results["sysctl.not-captured:vm.zone_reclaim_mode"]["severity"] == "info"
    assert results["cmdline.no-bootloader"]["severity"] == "info"
    # numatune installed as a system command: the boot file keeps THP (nothing else can here).
    install_numatune(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--confirm-within", "0")
    assert status == 0 and "not met" not in err, out + err
    status, results = _check(cli, root)
    assert status == 0, [r for r in results.values() if r["severity"] not in ("ok", "info")]


def test_thp_always_stays_critical_and_two_nodes_keep_numa_knobs_serious(tmp_path, cli):
    root = tmp_path / "vm"
    shutil.copytree(VM, root, symlinks=True)
    write(root, "/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n")
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    for node in ("node0", "node1"):
        write(root, "/sys/devices/system/node/%s/cpulist" % node, "0" if node == "node0" else "1")
    write(root, "/sys/devices/system/node/online", "0-1\n")
    status, results = _check(cli, root)
    assert status == 2
    assert results["thp.live"]["severity"] == "critical"
    assert results["sysctl.live:kernel.numa_balancing"]["severity"] == "critical"


def test_plan_exit_code_is_git_diffs(tmp_path, cli):
    root = tmp_path / "vm"
    shutil.copytree(VM, root, symlinks=True)
    assert cli("plan", "--root", root)[0] == 0
    assert cli("plan", "--root", root, "--exit-code")[0] == 1
    cli("apply", "--yes", "--root", root, "--confirm-within", "0")
    assert cli("plan", "--root", root, "--exit-code")[0] == 0


def test_apply_that_cannot_meet_the_policy_exits_1_with_one_line(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"kernel.numa_balancing" = 0\n"kernel.numa_balancnig" = 0\n')
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == 1
    # What could be done is done, and said; what could not is one line.
    assert (root / "proc/sys/kernel/numa_balancing").read_text().strip() == "0"
    assert err.splitlines() == ["numatune: the policy is not met: sysctl.unknown:kernel.numa_balancnig "
                                "(kernel.numa_balancnig is not a sysctl key this kernel or numatune knows "
                                "(did you mean kernel.numa_balancing?): not set)"]
