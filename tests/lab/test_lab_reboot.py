"""The lab reboots (issue #24): the first boot applies the default policy plus per-node HugePages, IRQ
affinity and a bond, and keeps what it wrote to /etc (and numatune's journal) in the host-side LAB_STATE
directory; run.sh boots the guest a second time with that /etc put back before udev starts, replays the boot path
a host runs (bootpath.py: systemd-sysctl, udev's coldplug, the units the first boot wrote, network-scripts' ifup
of the bond), and every value is back without another apply: `check` says so.

The first boot's test runs last in run.sh's usual run (it leaves its changes applied: the second boot needs them);
the second boot's tests run only there (NUMATUNE_LAB_BOOT=2)."""
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from labkit import guest_only, numatune, plan_json, read

pytestmark = guest_only
STATE = Path("/run/lab/state")
BOOT = os.environ.get("NUMATUNE_LAB_BOOT", "1")
NODE = Path("/sys/devices/system/node")
NET = Path("/sys/class/net")
MAC = "52:54:00:4c:41:42"           # run-in-guest.sh's virtio-net NIC on node 1 (LAB_NIC=1)
IFCFG = Path("/etc/sysconfig/network-scripts")
# What is kept across the reboot: every file the first boot wrote under these, and numatune's journal.
KEPT = ("/etc",)
JOURNAL = Path("/var/lib/numatune")
POLICY = '''# The reboot test's policy, on top of the shipped default (oracle-numa).
[hugepages]
size = "2M"
count = 64
placement = { 1 = 64 }

[[net]]
match = { mac = "%s" }
irq_affinity = "local-node"

[[bond]]
name = "labbond0"
xmit_hash_policy = "layer3+4"
miimon = 100

[[net]]
match = { name = "labbond0" }
mtu = 9000
''' % MAC
# The site's own network-scripts files for the bond (numatune edits them, it does not create bonds).
SITE_IFCFG = {"labbond0": 'DEVICE=labbond0\nTYPE=Bond\nBONDING_MASTER=yes\nBONDING_OPTS="mode=802.3ad"\n'
                          'ONBOOT=yes\nBOOTPROTO=none\n',
              "labv0": "DEVICE=labv0\nMASTER=labbond0\nSLAVE=yes\nONBOOT=yes\nBOOTPROTO=none\n",
              "labv1": "DEVICE=labv1\nMASTER=labbond0\nSLAVE=yes\nONBOOT=yes\nBOOTPROTO=none\n"}
SYSCTLS = ("kernel.numa_balancing", "vm.zone_reclaim_mode", "vm.nr_hugepages")


def policies():
    return ("--policy", "oracle-numa", "--policy", STATE / "reboot-policy.toml")


def lab_nic():
    for dev in sorted(NET.iterdir()):
        if (dev / "device").exists() and read(dev / "address") == MAC:
            return dev.name
    pytest.fail("no lab NIC with MAC %s: run.sh attaches it (LAB_NIC=1)" % MAC)


def nic_irqs():
    pci = (NET / lab_nic() / "device").resolve().parent
    return sorted((p.name for p in (pci / "msi_irqs").iterdir() if Path("/proc/irq", p.name).is_dir()), key=int)


def expand(cpulist):
    out = set()
    for part in cpulist.split(","):
        lo, _, hi = part.partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out


def kept():
    """Every value the reboot must bring back, as the kernel has it now."""
    bond = NET / "labbond0"
    return {
        "sysctl": {k: read("/proc/sys/" + k.replace(".", "/")) for k in SYSCTLS},
        "thp": read("/sys/kernel/mm/transparent_hugepage/enabled"),
        "hugepages": {p.name: read(p / "hugepages/hugepages-2048kB/nr_hugepages")
                      for p in sorted(NODE.glob("node[0-9]*"))},
        "bond": {"mode": read(bond / "bonding/mode"), "miimon": read(bond / "bonding/miimon"),
                 "xmit_hash_policy": read(bond / "bonding/xmit_hash_policy"), "mtu": read(bond / "mtu"),
                 "slaves": read(bond / "bonding/slaves")} if bond.is_dir() else None,
        # IRQ numbers change between boots: what must come back is that each of the NIC's IRQs is on node 1.
        "irq_on_node1": {i: expand(read("/proc/irq/%s/smp_affinity_list" % i)) <= expand(read(NODE / "node1/cpulist"))
                         for i in nic_irqs()},
    }


def signature(top):
    """{path: what it is} of everything under top, to find what a boot wrote."""
    out = {}
    for dirpath, dirs, files in os.walk(top):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            link = os.readlink(path) if os.path.islink(path) else None
            out[path] = (st.st_mode, st.st_size, st.st_mtime_ns, link)
    return out


def written_since(before):
    """New and changed paths (not directories that were already there, only their mtime changed)."""
    after = {}
    for top in KEPT:
        after.update(signature(top))
    return sorted(p for p, sig in after.items()
                  if before.get(p) != sig and not (p in before and os.path.isdir(p) and not os.path.islink(p)))


def bond_hardware():
    """The bond as a site has it: labbond0 (802.3ad, miimon 50) over two veths, its network-scripts files."""
    def ip(*args):
        subprocess.run(["ip"] + list(args), check=True)
    ip("link", "add", "labbond0", "type", "bond", "mode", "802.3ad", "miimon", "50")
    for i in (0, 1):
        ip("link", "add", "labv%d" % i, "type", "veth", "peer", "name", "labv%dp" % i)
        ip("link", "set", "labv%d" % i, "master", "labbond0")
        ip("link", "set", "labv%dp" % i, "up")
    ip("link", "set", "labbond0", "up")
    IFCFG.mkdir(parents=True, exist_ok=True)
    for name, text in SITE_IFCFG.items():
        (IFCFG / ("ifcfg-" + name)).write_text(text)


@pytest.mark.skipif(BOOT != "1", reason="the reboot's first boot (run.sh's usual run)")
def test_boot1_applies_and_keeps_etc():
    """Boot 1: apply (default policy + HugePages on node 1, IRQ affinity, bond) is compliant; /etc is kept."""
    if not STATE.is_dir():
        pytest.skip("no LAB_STATE directory mounted at %s (run.sh gives one)" % STATE)
    before = {}
    for top in KEPT:
        before.update(signature(top))
    bond_hardware()
    # A fresh boot's affinity is every CPU (node 0's too, remote for this NIC): make sure of it.
    for irq in nic_irqs():
        Path("/proc/irq/%s/smp_affinity_list" % irq).write_text("0-3")
    (STATE / "reboot-policy.toml").write_text(POLICY)
    status, out, err = numatune("apply", "--yes", *policies())
    assert status == 0, out + err
    status, out, err = numatune("check", *policies())
    assert status == 0, out + err
    values = kept()
    assert values["hugepages"] == {"node0": "0", "node1": "64"}
    assert all(values["irq_on_node1"].values()), values["irq_on_node1"]
    assert values["bond"]["mtu"] == "9000" and values["bond"]["xmit_hash_policy"].startswith("layer3+4")
    written = written_since(before)
    print("the first boot wrote:\n  " + "\n  ".join(written))
    (STATE / "expected.json").write_text(json.dumps(values, indent=1))
    with tarfile.open(STATE / "journal.tar", "w", format=tarfile.USTAR_FORMAT) as tar:
        tar.add(str(JOURNAL), arcname=str(JOURNAL).lstrip("/"))
    # etc.tar last: run.sh boots a second time only when it is there. USTAR: busybox tar unpacks it (guest-init).
    with tarfile.open(STATE / "etc.tar.part", "w", format=tarfile.USTAR_FORMAT) as tar:
        for path in written:
            tar.add(path, arcname=path.lstrip("/"), recursive=False)
    (STATE / "etc.tar.part").rename(STATE / "etc.tar")


second = pytest.mark.skipif(BOOT != "2", reason="the reboot's second boot (run.sh boots it after the first)")


@pytest.fixture(scope="module")
def expected():
    return json.loads((STATE / "expected.json").read_text())


@pytest.fixture(scope="module")
def now():
    values = kept()
    print("after the second boot: %s" % json.dumps(values, indent=1))
    return values


@second
def test_boot_path_ran_without_errors():
    """bootpath.py (systemd-sysctl, the units boot 1 wrote, ifup of the bond) ran every step it had."""
    assert read("/run/lab/bootpath.rc") == "0", read("/run/lab/bootpath.log")


@second
def test_check_is_ok_without_another_apply(now):
    """`numatune check` of the same policies is OK and `plan` has nothing left to change, with no apply this boot."""
    changes = plan_json("oracle-numa", "--policy", str(STATE / "reboot-policy.toml"))["changes"]
    other = [c["id"] for c in changes if not c["id"].startswith("net.irq:")]
    assert other == []
    assert changes == [], [c["id"] for c in changes]
    status, out, err = numatune("check", *policies())
    assert status == 0, out + err
    assert "numatune OK" in out


@second
def test_hugepages_node1_is_what_boot1_set(expected, now):
    """Per-node HugePages: node 1 holds the 64 pages boot 1 set, node 0 none (not the kernel's even 32/32)."""
    assert now["hugepages"] == expected["hugepages"] == {"node0": "0", "node1": "64"}


@second
def test_default_policy_sysctls_and_thp_are_back(expected, now):
    """The default policy's sysctls (and vm.nr_hugepages) from sysctl.d, THP never from the boot file."""
    assert now["sysctl"] == expected["sysctl"]
    assert now["thp"] == expected["thp"] == "always madvise [never]"


@second
def test_bond_is_back(expected, now):
    """labbond0 comes back from its ifcfg file with numatune's hash policy, miimon and MTU 9000."""
    assert now["bond"] == expected["bond"]


@second
def test_irq_affinity_is_back(expected, now):
    """Every IRQ of the NIC on node 1 is served by node 1's CPUs again (`numatune boot` re-plans them on this boot's
    IRQ numbers, which may differ from the first boot's)."""
    assert now["irq_on_node1"] and all(now["irq_on_node1"].values()), now["irq_on_node1"]
