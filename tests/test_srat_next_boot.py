"""A host booted with numa=off whose next boot brings its nodes back (#35, #36):
settings bound to a node the running kernel hides are planned for that boot
(the firmware's ACPI SRAT says which nodes it has), pending, not critical;
without an SRAT the node count after the reboot is unknown, said once, and
nothing is guessed."""
import json
import shutil
import struct

import pytest

import fakehost
from conftest import tree_digest, write
from numatune.facts import srat

NODE = "sys/devices/system/node"
GIB_KB = 1 << 20


def table(cpus, memory, revision=3):
    """An ACPI SRAT: ``cpus`` [(kind "apic"|"x2apic", domain, apic id)], ``memory`` [(domain, GiB[, flags])]."""
    body, base = b"", 0
    for kind, domain, apic in cpus:
        if kind == "apic":
            body += struct.pack("<BBBBIB3sI", 0, 16, domain & 0xff, apic, 1, 0, (domain >> 8).to_bytes(3, "little"),
                                0)
        else:
            body += struct.pack("<BBHIIII", 2, 24, 0, domain, apic, 1, 0) + b"\0" * 4
    for domain, gib, *flags in memory:
        body += struct.pack("<BBIHQQIIQ", 1, 40, domain, 0, base, gib << 30, 0, flags[0] if flags else 1, 0)
        base += gib << 30
    header = b"SRAT" + struct.pack("<IBB6s8sIII", 48 + len(body), revision, 0, b"QEMU  ", b"Q35     ", 1, 0, 0)
    return header + struct.pack("<IQ", 1, 0) + body


CPUINFO = "".join("processor\t: %d\nvendor_id\t: GenuineIntel\napicid\t\t: %d\ninitial apicid\t: %d\n\n"
                  % (c, c * 2, c * 2) for c in range(8))


def numa_off_root(root, release="6.1.0-13-amd64", firmware=True):
    """fakehost's RHEL 8 BLS layout booted with numa=off: one node with every CPU and all memory; the firmware's
    SRAT describes two domains (CPUs 0-3 with APIC ids 0,2,4,6 in domain 0; 4-7 in domain 1; 8 GiB each)."""
    fakehost.build(root)
    shutil.rmtree(root / NODE / "node1")
    write(root, NODE + "/online", "0\n")
    write(root, NODE + "/has_memory", "0\n")
    write(root, NODE + "/node0/cpulist", "0-7\n")
    write(root, NODE + "/node0/distance", "10\n")
    write(root, NODE + "/node0/meminfo", "Node 0 MemTotal: %d kB\nNode 0 MemFree: %d kB\n" % (16 * GIB_KB, 8 * GIB_KB))
    write(root, "proc/sys/kernel/osrelease", release + "\n")
    write(root, "proc/cpuinfo", CPUINFO)
    if firmware:
        (root / "sys/firmware/acpi/tables").mkdir(parents=True)
        (root / "sys/firmware/acpi/tables/SRAT").write_bytes(table(
            [("apic", c // 4, c * 2) for c in range(8)], [(0, 8), (1, 8)]))
    return root


POOL = """
[kernel.cmdline]
absent = ["numa=off"]

[hugepages]
size = "2M"
count = 512
placement = { 1 = 512 }
"""


def _plan(cli, root, pol, *more):
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--format", "json", *more)
    assert status == 0, err
    return json.loads(out)


def test_srat_nodes_in_linux_order_with_their_cpus_and_memory():
    # Domain 7 met first (its CPUs come first in the table), then 3: Linux numbers them 0 and 1.
    # A hot-pluggable range (flags 3) holds nothing at boot; a disabled one (0) is not there at all.
    data = table([("x2apic", 7, 0), ("x2apic", 7, 2), ("x2apic", 3, 4)], [(3, 4), (7, 2), (9, 1), (3, 64, 3),
                                                                           (11, 8, 0)])
    got = srat.nodes(data, {0: 0, 2: 1, 4: 2})
    assert [(n["id"], n["domain"], n["cpus"], n["mem_kb"]) for n in got] == [
        ("0", 7, [0, 1], 2 * GIB_KB), ("1", 3, [2], 4 * GIB_KB), ("2", 9, None, GIB_KB)]
    assert srat.domains(data) == [3, 7, 9]
    assert srat.apic_cpus(CPUINFO)[14] == 7


def test_an_srat_whose_numbering_depends_on_the_kernel_gives_no_nodes():
    # A local APIC entry of domain 5 before an x2APIC one of domain 2: 4.9+ numbers 5 first, 3.10 numbers 2 first.
    data = table([("apic", 5, 0), ("x2apic", 2, 300)], [(5, 1), (2, 1)])
    assert srat.nodes(data, {}) is None
    assert srat.domains(data) == [2, 5]
    assert srat.nodes(b"SSDT" + bytes(60), {}) is None


def test_a_pool_on_a_node_numa_off_hides_is_planned_for_the_next_boot_and_pending(tmp_path, cli):
    root = numa_off_root(tmp_path / "root")
    pol = write(tmp_path, "p.toml", POOL)
    plan = _plan(cli, root, pol)
    findings = {f["id"]: f for f in plan["findings"]}
    assert not [f for f in plan["findings"] if f["severity"] == "critical" and f["id"].startswith("hugepages")]
    pending = findings["hugepages.next-boot:node1"]
    assert pending["pending"] and "waits for the reboot that removes numa=off" in pending["message"]
    ids = {c["id"]: c for c in plan["changes"]}
    # Linux 6.1 and a BLS layout: the node format in the bootloader, the live pool left alone.
    assert "cmdline.add:hugepages=1:512" in ids and "cmdline.remove:numa=off" in ids
    assert not [c for c in plan["changes"] if c["id"].startswith("hugepages.live")]
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--yes")
    assert status == 0, out + err
    assert "reboot" in out
    assert (root / NODE / "node0/hugepages/hugepages-2048kB/nr_hugepages").read_text() == "0\n"
    # Before the reboot, check says it waits (a warning), not critical.
    status, out, err = cli("check", "--root", root, "--policy", pol)
    assert status == 1 and "CRITICAL" not in out, out
    _reboot(root, pool={"0": 0, "1": 512})
    status, out, err = cli("check", "--root", root, "--policy", pol)
    assert status == 0, out + err


def _reboot(root, pool):
    """What the next boot shows: the bootloader's arguments, the firmware's two nodes, the pool as placed."""
    entry = next((root / "boot/loader/entries").iterdir())
    env = (root / "boot/grub2/grubenv").read_bytes().decode()
    opts = next(line for line in env.splitlines() if line.startswith("kernelopts="))[len("kernelopts="):]
    assert "numa=off" not in opts and "numa=off" not in entry.read_text()
    write(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.1.0-13-amd64 %s\n" % opts)
    write(root, NODE + "/online", "0-1\n")
    write(root, NODE + "/has_memory", "0-1\n")
    for n in (0, 1):
        write(root, NODE + "/node%d/cpulist" % n, "%d-%d\n" % (4 * n, 4 * n + 3))
        write(root, NODE + "/node%d/distance" % n, "10 21\n" if n == 0 else "21 10\n")
        write(root, NODE + "/node%d/meminfo" % n, "Node %d MemTotal: %d kB\nNode %d MemFree: %d kB\n"
              % (n, 8 * GIB_KB, n, 4 * GIB_KB))
        for f in ("nr_hugepages", "free_hugepages"):
            write(root, NODE + "/node%d/hugepages/hugepages-2048kB/%s" % (n, f), "%d\n" % pool[str(n)])
    write(root, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "%d\n" % sum(pool.values()))


def test_before_linux_5_16_the_boot_file_places_the_pool_at_the_next_boot(tmp_path, cli):
    root = numa_off_root(tmp_path / "root", release="4.18.0-305.el8.x86_64")
    pol = write(tmp_path, "p.toml", POOL)
    plan = _plan(cli, root, pol)
    ids = {c["id"]: c for c in plan["changes"]}
    assert "hugepages.boot:node1:2048kB" in ids and ids["hugepages.boot:node1:2048kB"]["desired"] == "512"
    assert not [i for i in ids if i.startswith("cmdline.add:hugepages")]
    assert {f["id"] for f in plan["findings"] if f.get("pending")} >= {"hugepages.next-boot:node1"}


def test_without_an_srat_the_node_count_after_the_reboot_is_unknown_and_nothing_is_guessed(tmp_path, cli):
    root = numa_off_root(tmp_path / "root", firmware=False)
    pol = write(tmp_path, "p.toml", POOL)
    plan = _plan(cli, root, pol)
    findings = {f["id"]: f for f in plan["findings"]}
    assert findings["hugepages.no-node:1"]["severity"] == "critical"
    unknown = [f for f in plan["findings"] if f["id"] == "cmdline.next-nodes-unknown"]
    assert len(unknown) == 1 and "unknown" in unknown[0]["message"]
    assert not [c for c in plan["changes"] if c["id"].startswith(("hugepages", "cmdline.add:hugepages"))]


def test_numa_off_kept_by_the_policy_keeps_todays_refusal(tmp_path, cli):
    root = numa_off_root(tmp_path / "root")
    pol = write(tmp_path, "p.toml", POOL.replace('absent = ["numa=off"]', 'present = ["numa=off"]'))
    plan = _plan(cli, root, pol)
    assert {f["id"]: f for f in plan["findings"]}["hugepages.no-node:1"]["severity"] == "critical"
    assert "cmdline.next-nodes-unknown" not in {f["id"] for f in plan["findings"]}


def _cgroup_v2(root):
    write(root, "proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n")
    write(root, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n")
    write(root, "sys/fs/cgroup/cgroup.subtree_control", "cpuset memory pids\n")
    for name in ("cgroup.procs", "cpuset.cpus.effective", "cpuset.mems.effective"):
        write(root, "sys/fs/cgroup/" + name, "\n")
    (root / "run/systemd/system").mkdir(parents=True)


CPUSET = POOL + '\n[[cpuset]]\nname = "oracle"\nnodes = [1]\n'


def test_a_cpuset_on_a_node_numa_off_hides_writes_its_slice_for_the_next_boot_and_waits(tmp_path, cli):
    root = numa_off_root(tmp_path / "root")
    _cgroup_v2(root)
    pol = write(tmp_path, "p.toml", CPUSET)
    plan = _plan(cli, root, pol)
    findings = {f["id"]: f for f in plan["findings"]}
    assert not [f for f in plan["findings"] if f["severity"] == "critical" and f["id"].startswith("cpuset")]
    assert findings["cpuset.next-boot:oracle"]["pending"]
    ids = {c["id"]: c for c in plan["changes"]}
    assert "cpuset.create:oracle" not in ids
    # The firmware's node 1: APIC ids 8-14, CPUs 4-7.
    assert ids["cpuset.persist:oracle"]["desired"] == "AllowedCPUs=4-7 AllowedMemoryNodes=1"
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--yes")
    assert status == 0, out + err
    assert "AllowedMemoryNodes=1\n" in (root / "etc/systemd/system/oracle.slice").read_text()
    assert not (root / "sys/fs/cgroup/oracle.slice").exists()
    _reboot(root, pool={"0": 0, "1": 512})
    # systemd starts the slice at boot (slices.target wants it) with its cpuset.
    for name, text in (("cpuset.cpus", "4-7"), ("cpuset.mems", "1"), ("cgroup.procs", "")):
        write(root, "sys/fs/cgroup/oracle.slice/" + name, text + "\n")
    status, out, err = cli("check", "--root", root, "--policy", pol)
    assert status == 0, out + err


def test_a_cpuset_on_a_hidden_node_whose_cpus_the_firmware_does_not_map_is_refused_as_today(tmp_path, cli):
    root = numa_off_root(tmp_path / "root")
    _cgroup_v2(root)
    write(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n\n")
    pol = write(tmp_path, "p.toml", CPUSET)
    findings = {f["id"]: f for f in _plan(cli, root, pol)["findings"]}
    assert findings["cpuset.unresolvable:oracle"]["severity"] == "critical"
    assert "not which CPUs node 1 holds" in findings["cpuset.unresolvable:oracle"]["message"]
    assert "cpuset.next-boot:oracle" not in findings


def test_both_snapshots_keep_the_srat_and_the_capture_plans_the_next_boot(tmp_path, cli):
    import os
    import subprocess
    import tarfile
    from conftest import REPO, run_cli
    src = numa_off_root(tmp_path / "src")
    status, out, err = run_cli("snapshot", "--root", src, "--out", tmp_path / "py.tar.gz")
    assert status == 0, err
    proc = subprocess.run(["sh", str(REPO / "packaging/numatune-snapshot.sh"), str(tmp_path / "sh.tar.gz")],
                          capture_output=True, text=True, env=dict(os.environ, NUMATUNE_SNAPSHOT_ROOT=str(src)))
    assert proc.returncode == 0, proc.stderr
    pol = write(tmp_path, "p.toml", POOL)
    for name in ("py", "sh"):
        with tarfile.open(tmp_path / ("%s.tar.gz" % name)) as tar:
            tar.extractall(tmp_path / name)
        got = tmp_path / name / "sys/firmware/acpi/tables/SRAT"
        assert got.read_bytes() == (src / "sys/firmware/acpi/tables/SRAT").read_bytes()
        assert "hugepages.next-boot:node1" in {f["id"] for f in _plan(cli, tmp_path / name, pol)["findings"]}


def test_the_real_qemu_srat_gives_the_nodes_the_guest_booted_with():
    """The lab guest's own table (tests/data/qemu-srat): revision 1, local APIC entries, node 0's memory in two
    ranges around the 640 KiB-1 MiB hole. Without numa=off that guest shows node 0 = CPUs 0-1 and node 1 = 2-3."""
    from conftest import REALDATA
    data = (REALDATA / "qemu-srat" / "SRAT").read_bytes()
    got = srat.nodes(data, srat.apic_cpus("".join("processor\t: %d\napicid\t\t: %d\n\n" % (c, c) for c in range(4))))
    assert [(n["id"], n["cpus"]) for n in got] == [("0", [0, 1]), ("1", [2, 3])]
    assert [n["mem_kb"] for n in got] == [640 + (2 * GIB_KB - 1024), 2 * GIB_KB]


def test_the_slice_kept_at_boot_is_said_as_its_settings_not_as_a_python_dict(tmp_path, cli):
    root = numa_off_root(tmp_path / "root")
    _cgroup_v2(root)
    pol = write(tmp_path, "p.toml", CPUSET)
    assert cli("apply", "--root", root, "--policy", pol, "--yes")[0] == 0
    status, out, err = cli("check", "--root", root, "--policy", pol)
    assert "cpuset oracle: AllowedCPUs=4-7 AllowedMemoryNodes=1 at boot" in " ".join(out.split()), out
