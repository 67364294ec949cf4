"""What the plan says about the host is true: a sysctl missing from a
capture is "not supported" only when the kernel version or the snapshot's
manifest says so; a kernel that has the key gets it persisted; a line
commented out in /run/sysctl.d is said to come back at boot; cores are
counted per core, not per (package, core_id)."""
import json
from pathlib import Path

import pytest

from conftest import write
from numatune.facts import manifest, topology
from numatune.families.sysctl import support
from numatune.root import Root
from numatune.snapshot import PATTERNS

ZRM = '[sysctl]\n"vm.zone_reclaim_mode" = { value = 0, why = "remote memory costs 2.15x local" }\n'


def _plan(cli, root, policy):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize("release,manifested,answer", [
    ("2.6.32-754.el6.x86_64", False, "no"),       # RHEL 6: no numa_balancing (3.8)
    ("3.10.0-1160.el7.x86_64", False, "yes"),     # RHEL 7 has it: only the capture lacks it
    ("3.10.0-1160.el7.x86_64", True, "no"),       # the snapshot tried /proc/sys/kernel and it was not there
    ("", False, "unknown"),
])
def test_numa_balancing_support_follows_version_and_manifest(release, manifested, answer):
    patterns = [tuple(p) for p in PATTERNS] if manifested else None
    got, why = support.support("kernel.numa_balancing", "/proc/sys/kernel/numa_balancing", False, patterns, release)
    assert got == answer, why


def test_sched_knobs_moved_to_debugfs_are_not_supported_on_rhel9():
    got, why = support.support("kernel.sched_migration_cost_ns", "/proc/sys/kernel/sched_migration_cost_ns", False,
                               None, "5.14.0-362.el9.x86_64")
    assert got == "no" and "debugfs" in why


def test_a_capture_without_proc_sys_vm_still_persists_zone_reclaim_mode(tmp_path, cli, capture):
    # hwloc's captures keep no /proc/sys: the kernel (2.6.32+) has the key, so it is persisted, not "unsupported".
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    write(root, "/proc/sys/kernel/osrelease", "3.10.0-1160.el7.x86_64\n")
    assert not (root / "proc/sys/vm/zone_reclaim_mode").exists()
    plan = _plan(cli, root, write(tmp_path, "p.toml", ZRM))
    found = {f["id"]: f for f in plan["findings"]}
    assert "sysctl.unsupported:vm.zone_reclaim_mode" not in found
    assert "persisted for the next boot" in found["sysctl.not-captured:vm.zone_reclaim_mode"]["message"]
    change = next(c for c in plan["changes"] if c["id"] == "sysctl.persist:vm.zone_reclaim_mode")
    assert change["desired"] == "0" and change["writes"][0]["path"] == "/etc/sysctl.d/90-numatune.conf"


def test_a_capture_that_tried_and_found_nothing_says_unsupported(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/sys/kernel/osrelease", "3.10.0-1160.el7.x86_64\n")
    write(root, manifest.MANIFEST, manifest.render(PATTERNS))
    plan = _plan(cli, root, write(tmp_path, "p.toml", '[sysctl]\n"kernel.numa_balancing" = 0\n'))
    found = {f["id"]: f for f in plan["findings"]}
    assert "the snapshot read /proc/sys/kernel" in found["sysctl.unsupported:kernel.numa_balancing"]["message"]
    assert plan["changes"] == []


def test_a_key_unknown_to_numatune_is_not_called_unsupported(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/sys/kernel/osrelease", "4.18.0-513.el8.x86_64\n")
    plan = _plan(cli, root, write(tmp_path, "p.toml", '[sysctl]\n"net.core.busy_poll" = 50\n'))
    found = {f["id"]: f for f in plan["findings"]}
    assert "sysctl.unsupported:net.core.busy_poll" not in found
    assert found["sysctl.not-captured:net.core.busy_poll"]["severity"] == "warning"
    assert plan["changes"] == []


def test_a_line_commented_out_in_run_is_said_to_come_back_at_boot(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/sys/vm/zone_reclaim_mode", "0\n")
    write(root, "/run/sysctl.d/95-tuned.conf", "vm.zone_reclaim_mode = 1\n")
    policy = write(tmp_path, "p.toml", ZRM)
    plan = _plan(cli, root, policy)
    warn = next(f for f in plan["findings"] if f["id"].startswith("sysctl.runtime-file:"))
    assert "next boot only" in warn["message"]
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 0, out + err
    replan = _plan(cli, root, policy)
    assert replan["changes"] == []
    # Not "vm.zone_reclaim_mode = 0 at boot": the tool that writes /run/sysctl.d puts the line back.
    assert not [c for c in replan["compliant"] if c["rule"] == "sysctl.persist:vm.zone_reclaim_mode"]
    warn = next(f for f in replan["findings"] if f["id"].startswith("sysctl.runtime-file:"))
    assert warn["severity"] == "warning" and "lost at boot" in warn["message"]


def test_cores_of_multi_die_packages_are_each_counted(capture):
    # hwloc's 32amd64-4s2n4c: 4 packages, 2 NUMA nodes (dies) of 4 cores each, core_id 0-3 on both dies.
    root = capture("32amd64-4s2n4c-cgroup2")
    summary = topology.read(Root(str(root)))["summary"]
    assert (summary["sockets"], summary["nodes"], summary["cores"]) == (4, 8, 32)


def test_cores_without_sibling_lists_count_dies_and_nodes(tmp_path):
    # A 4-socket, 48-core Magny-Cours shape: 2 dies (nodes) of 6 cores per package, core_id 0-5 on each die.
    root = tmp_path / "root"
    for cpu in range(48):
        package, die, core = cpu // 12, (cpu // 6) % 2, cpu % 6
        write(root, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id" % cpu, "%d\n" % package)
        write(root, "/sys/devices/system/cpu/cpu%d/topology/core_id" % cpu, "%d\n" % core)
    for node in range(8):
        write(root, "/sys/devices/system/node/node%d/cpulist" % node, "%d-%d\n" % (node * 6, node * 6 + 5))
    write(root, "/sys/devices/system/cpu/online", "0-47\n")
    summary = topology.read(Root(str(root)))["summary"]
    assert (summary["sockets"], summary["cores"]) == (4, 48)


def test_snapshot_records_what_it_tried(tmp_path):
    import tarfile
    from numatune import snapshot
    src = tmp_path / "host"
    write(src, "/proc/sys/kernel/osrelease", "3.10.0-1160.el7.x86_64\n")
    snapshot.capture(Root(str(src)), str(tmp_path / "s.tar.gz"))
    with tarfile.open(tmp_path / "s.tar.gz") as tar:
        tar.extractall(tmp_path / "out")
    patterns = manifest.read_patterns(Root(str(tmp_path / "out")))
    assert ("/proc/sys/kernel", r"^(osrelease|hostname|numa_balancing|sched_.*|shm.*|sem)$", False) in patterns
    assert manifest.read_patterns(Root(str(src))) is None  # a root without one: unknown, not "tried"


CPUSET_CASES = sorted((Path(__file__).parent / "cases/cpuset").glob("*/policy.toml"))


@pytest.mark.parametrize("policy", CPUSET_CASES, ids=[p.parent.name for p in CPUSET_CASES])
def test_every_cpuset_change_says_why(tmp_path, cli, policy):
    import shutil
    shutil.copytree(policy.parent / "root", tmp_path / "root", symlinks=True)
    plan = _plan(cli, tmp_path / "root", policy)
    changes = [c for c in plan["changes"] if c["id"].startswith("cpuset.")]
    assert changes, "the case plans cpuset changes"
    assert all(c["why"].strip() for c in changes), [c["id"] for c in changes if not c["why"].strip()]
