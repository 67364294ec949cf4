"""`numatune facts --format policy` (issue #37): the host as it is, as a
policy that `plan` on the same host reports as no changes: on every capture
in tests/data and the built hosts, and on a tuned reference host whose
files keep what is live (sysctl.d, its pools, THP's boot argument, ifcfg)."""
import json
import re
import shutil
import sys

import pytest

from conftest import CAPTURES, REALDATA, REPO, install_numatune
import e7host
import superdome_host

sys.path.insert(0, str(REPO / "bench"))
from make_host import make_host  # noqa: E402


def _built(name, tmp_path):
    root = tmp_path / name
    if name == "this-vm":
        shutil.copytree(REALDATA / "this-vm", root, symlinks=True)
    elif name == "e7host":
        e7host.build(root)
    elif name == "superdome":
        superdome_host.build(root)
    elif name == "make_host":
        make_host(str(root), sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=1, queues=1, instances=1, procs=10)
    return root


def _round_trip(cli, root, tmp_path):
    status, text, err = cli("facts", "--root", root, "--format", "policy")
    assert status == 0, err
    policy = tmp_path / "host.toml"
    policy.write_text(text)
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return text, json.loads(out)


BUILT = ["this-vm", "e7host", "superdome", "make_host"]
# The tables each host's policy holds: what it has live that its files keep at boot. No capture has /etc,
# so only what the kernel itself keeps is said: an empty HugePages pool (nothing fills it at boot).
EMPTY_POOL = {"hugepages", "tuned"}
TABLES = {
    "128arm-2pa2n8cluster4co": EMPTY_POOL, "32em64t-2n8c+dax+nvme+mic+dimms": EMPTY_POOL,
    "40intel64-2g2n4c+pcilocality": EMPTY_POOL, "64amd64-4s2n4ca2co": EMPTY_POOL, "memorysidecaches": EMPTY_POOL,
    "this-vm": EMPTY_POOL, "superdome": EMPTY_POOL,
    # 2,048 and 513 pages live that no file or boot argument gives back at boot.
    "16amd64-4n4c-cgroup-distance-merge": {"tuned"}, "32amd64-4s2n4c-cgroup2": {"tuned"},
    # No HugePages in the capture's sysfs.
    "256ppc-8n8s4t": {"tuned"}, "96em64t-4no4pa3ca2co": {"tuned"}, "ppc64-POWER7-64cpu": {"tuned"},
    "rv64-milkvpioneer": {"tuned"}, "vmware_fpe": {"tuned"}, "x86_64-64cpu": {"tuned"}, "x86_64-epyc_7451": {"tuned"},
    # The cgconfig group "oracle" of the papers; its 8 x 39,300 pages no file gives back at boot.
    "e7host": {"cpuset", "tuned"},
    # The preinstall sysctl.d file, the NIC's MTU in its ifcfg file, numa=off absent everywhere.
    "make_host": {"hugepages", "kernel", "net", "sysctl", "tuned"},
}


@pytest.mark.parametrize("name", sorted(CAPTURES) + BUILT)
def test_every_capture_plans_its_own_policy_as_no_changes(cli, capture, name, tmp_path):
    root = _built(name, tmp_path) if name in BUILT else capture(name)
    text, plan = _round_trip(cli, root, tmp_path)
    assert plan["changes"] == [], (text, plan["changes"][:3])
    status, out, err = cli("plan", "--root", root, "--policy", tmp_path / "host.toml", "--exit-code")
    assert status == 0, (text, out, err)
    # What `plan` loads is what was printed: the policy is valid as it stands.
    from numatune.policy.stack import load
    data = load([str(tmp_path / "host.toml")]).data
    assert data["policy"]["name"] == "host-as-is"
    assert set(data) - {"policy"} == TABLES[name], text
    if "hugepages" in data:
        assert data["hugepages"]["count"] == 0 and "placement" not in data["hugepages"], text


def test_a_tuned_host_says_what_it_keeps(cli, tmp_path):
    root = tmp_path / "host"
    make_host(str(root), sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=1, queues=1, instances=1, procs=10)
    # Live and at boot the same (the preinstall file's value), and one the next boot would change.
    (root / "proc/sys/net/core/rmem_max").write_text("4194304\n")
    (root / "proc/sys/kernel/shmmni").write_text("4095\n")
    text, plan = _round_trip(cli, root, tmp_path)
    assert plan["changes"] == []
    assert '"net.core.rmem_max" = 4194304' in text or "net.core.rmem_max = 4194304" in text, text
    assert "kernel.shmmni" not in text, text
    assert "[policy]" in text and "host-as-is" in text


def _tuned_reference_host(root):
    """make_host's RHEL 8 host tuned as a DBA leaves it: 1,024 x 2M pages
    spread evenly and kept by a sysctl.d file, THP never and kept by its boot
    argument, the NICs' MTU in their ifcfg files and their IRQs served on
    their own node."""
    make_host(str(root), sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=1, queues=2, instances=1, procs=10)
    (root / "etc/sysctl.d/97-hugepages.conf").write_text("vm.nr_hugepages = 1024\n")
    (root / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages").write_text("1024\n")
    for node in (0, 1):
        (root / ("sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages" % node)).write_text("512\n")
    (root / "sys/kernel/mm/transparent_hugepage/enabled").write_text("always madvise [never]\n")
    cmdline = root / "proc/cmdline"
    cmdline.write_text(cmdline.read_text().strip() + " transparent_hugepage=never\n")
    for name in ("etc/default/grub", "boot/grub2/grub.cfg"):
        path = root / name
        path.write_text(path.read_text().replace("rhgb quiet", "rhgb quiet transparent_hugepage=never"))
    env = root / "boot/grub2/grubenv"
    text = env.read_text().replace("rhgb quiet\n", "rhgb quiet transparent_hugepage=never\n", 1)
    # grubenv is a 1,024-byte block: the padding gives way to the argument.
    env.write_text(text.rstrip("#") + "#" * (1024 - len(text.rstrip("#"))))
    # Each NIC's IRQs served on CPUs of its own node (else a remote_irq warning doubts its [[net]] rules).
    interrupts = root / "proc/interrupts"
    lines = interrupts.read_text().splitlines()
    ncpu = len(lines[0].split())
    local = {}
    for nic in sorted((root / "sys/class/net").iterdir()):
        cpus = (nic / "device/local_cpulist").read_text() if (nic / "device/local_cpulist").exists() else ""
        if cpus:
            # Its queues' IRQs name it; its misc IRQ names its PCI address.
            local[nic.name] = local[(nic / "device").resolve().name] = int(re.split(r"[-,]", cpus)[0])
    out = [lines[0]]
    for line in lines[1:]:
        fields = line.split()
        owner = [n for n in local if n in line]
        if owner:
            counts = ["0"] * ncpu
            counts[local[owner[0]]] = "1000"
            line = " %s %s  %s" % (fields[0], " ".join("%10s" % c for c in counts), " ".join(fields[1 + ncpu:]))
        out.append(line)
    interrupts.write_text("\n".join(out) + "\n")
    return root


def test_a_tuned_reference_host_says_each_family_it_keeps(cli, tmp_path):
    root = _tuned_reference_host(tmp_path / "ref")
    text, plan = _round_trip(cli, root, tmp_path)
    assert plan["changes"] == [], (text, plan["changes"][:3])
    from numatune.policy.stack import load
    data = load([str(tmp_path / "host.toml")]).data
    # The values are the host's: its pool, THP mode, and each NIC's MTU.
    assert data["hugepages"] == {"size": "2M", "count": 1024, "placement": {"0": 512, "1": 512}}, text
    assert data["kernel"]["transparent_hugepage"] == "never", text
    assert data["kernel"]["cmdline"] == {"absent": ["numa=off"]}, text
    mtus = {(n / "mtu").read_text().strip() for n in (root / "sys/class/net").iterdir() if n.name != "lo"}
    assert len(mtus) == 1
    assert [r for r in data["net"] if "mtu" in r] == [{"match": {"driver": "i40e"}, "mtu": int(mtus.pop())}], text
    assert data["sysctl"]["fs.file-max"] == 6815744


def test_a_host_numatune_tuned_says_its_block_rules_back(cli, tmp_path):
    # The reference host was tuned by numatune: its udev rules keep the array's queues at boot.
    root = tmp_path / "host"
    make_host(str(root), sockets=2, nodes=2, cpus=8, luns=4, paths=2, nics=1, queues=1, instances=1, procs=10)
    install_numatune(root)
    policy = tmp_path / "site.toml"
    policy.write_text('[policy]\nname = "site"\n[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\n'
                      "nr_requests = 512\nread_ahead_kb = 8192\n")
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, (out, err)
    text, plan = _round_trip(cli, root, tmp_path)
    assert plan["changes"] == [], (text, plan["changes"][:3])
    from numatune.policy.stack import load
    rules = load([str(tmp_path / "host.toml")]).data["block"]
    # One rule per setting for the whole array, its 4 maps and 8 paths: the values the host has.
    array = {"vendor": "3PARdata", "model": "VV"}
    assert rules == [{"match": array, "nr_requests": 512}, {"match": array, "read_ahead_kb": 8192}], text
    for dev in ("sda", "dm-0"):
        assert (root / "sys/block" / dev / "queue/nr_requests").read_text().strip() == "512"


def test_the_papers_e7_says_its_cpuset_as_cgconfig_keeps_it(cli, tmp_path):
    root = tmp_path / "e7"
    e7host.build(root)
    text, plan = _round_trip(cli, root, tmp_path)
    from numatune.policy.stack import load
    sets = load([str(tmp_path / "host.toml")]).data["cpuset"]
    live = root / "cgroup/cpuset/oracle"
    assert sets == [{"name": "oracle", "cpus": (live / "cpuset.cpus").read_text().strip(),
                     "mems": (live / "cpuset.mems").read_text().strip(), "owner": {"uid": "oracle", "gid": "dba"},
                     "persist": "cgconfig"}], text


@pytest.mark.parametrize("pools, said", [
    # Spread as the kernel spreads vm.nr_hugepages at boot: the file keeps count and placement.
    ((512, 512, 512, 512), {"size": "2M", "count": 2048, "placement": {"0": 512, "1": 512, "2": 512, "3": 512}}),
    # Placed by hand and nothing places it at boot: without its placement the count alone would
    # move pages, so the whole table is left out (a [hugepages] with a size alone is no policy).
    ((1000, 24, 512, 512), None),
])
def test_a_pool_is_said_whole_or_not_at_all(cli, capture, tmp_path, pools, said):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    (root / "etc/sysctl.d").mkdir(parents=True)
    (root / "etc/sysctl.d/97-oracle.conf").write_text("vm.nr_hugepages = 2048\n")
    for node, pages in enumerate(pools):
        (root / ("sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages" % node)).write_text(
            "%d\n" % pages)
    text, plan = _round_trip(cli, root, tmp_path)
    assert plan["changes"] == [], text
    from numatune.policy.stack import load
    assert load([str(tmp_path / "host.toml")]).data.get("hugepages") == said, text
