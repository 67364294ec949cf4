"""Network on the guest's kernel: an 802.3ad bond over veth slaves, MTU 9000, confirm-within after SIGKILL."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from labkit import REPO, cycle, guest_only, numatune, policy_file, read, wait_for

pytestmark = guest_only
NET = Path("/sys/class/net")


def ip(*args):
    subprocess.run(["ip"] + list(args), check=True)


@pytest.fixture
def bond():
    """labbond0 (802.3ad, miimon 100) over two veths, all up: created here, deleted after."""
    ip("link", "add", "labbond0", "type", "bond", "mode", "802.3ad", "miimon", "100")
    for i in (0, 1):
        ip("link", "add", "labv%d" % i, "type", "veth", "peer", "name", "labv%dp" % i)
        ip("link", "set", "labv%d" % i, "master", "labbond0")
        ip("link", "set", "labv%dp" % i, "up")
    ip("link", "set", "labbond0", "up")
    yield "labbond0"
    for name in ("labv0", "labv1", "labbond0"):
        subprocess.run(["ip", "link", "del", name])


def bond_state():
    return {"mtu": {n: read(NET / n / "mtu") for n in ("labbond0", "labv0", "labv1")},
            "mode": read(NET / "labbond0/bonding/mode"),
            "xmit_hash_policy": read(NET / "labbond0/bonding/xmit_hash_policy")}


BOND_POLICY = '''
[[bond]]
name = "labbond0"
mode = "802.3ad"
xmit_hash_policy = "layer3+4"
miimon = 100

[[net]]
match = { name = "labbond0" }
mtu = 9000

[[net]]
match = { bond_slave_of = "labbond0" }
mtu = 9000
'''


def test_8023ad_bond_and_slaves_get_mtu_9000(tmp_path, bond):
    """MTU 9000 on an 802.3ad bond and its veth slaves, hash policy layer3+4, through rtnetlink/sysfs; revert restores."""
    policy = policy_file(tmp_path, BOND_POLICY)
    before, applied, _ = cycle(policy, bond_state)
    assert before["mode"] == "802.3ad 4"
    assert applied["mtu"] == {"labbond0": "9000", "labv0": "9000", "labv1": "9000"}
    assert applied["xmit_hash_policy"].split()[0] == "layer3+4"


@pytest.fixture
def veth():
    ip("link", "add", "labk0", "type", "veth", "peer", "name", "labk0p")
    yield "labk0"
    subprocess.run(["ip", "link", "del", "labk0"])


def test_confirm_within_reverts_after_sigkill(tmp_path, veth):
    """apply --confirm-within 2, SIGKILL the apply: the detached watchdog puts the real MTU back on its own."""
    before = read(NET / veth / "mtu")
    policy = policy_file(tmp_path, '[[net]]\nmatch = { name = "%s" }\nmtu = 9000\n' % veth)
    proc = subprocess.Popen([sys.executable, "-m", "numatune", "apply", "--policy", str(policy), "--yes",
                             "--confirm-within", "2"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, cwd=str(REPO))
    try:
        for line in proc.stdout:
            print(line, end="")
            if "confirm within" in line:
                break
        assert read(NET / veth / "mtu") == "9000"
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    # The watchdog runs Python under TCG: give it time to start and take the lock.
    assert wait_for(lambda: read(NET / veth / "mtu") == before, timeout=120), read(NET / veth / "mtu")
    txid = line.split("numatune confirm ")[1].split()[0].strip("`,")
    marker = Path("/var/lib/numatune/confirm/%s.json" % txid)
    # The watchdog marks its marker once the revert is committed, a moment after the MTU is back.
    assert wait_for(lambda: json.loads(marker.read_text())["state"] == "reverted", timeout=60), marker.read_text()


def lab_nic():
    """The virtio-net NIC run.sh attaches behind a PCIe expander on node 1 (LAB_NIC=1)."""
    for dev in sorted(NET.iterdir()):
        if (dev / "device").exists() and read(dev / "address") == "52:54:00:4c:41:42":
            return dev.name
    pytest.skip("no lab NIC (LAB_NIC=1 attaches it)")


def nic_irqs(name):
    pci = (NET / name / "device").resolve().parent
    return sorted((p.name for p in (pci / "msi_irqs").iterdir()), key=int)


def test_irqs_of_a_nic_on_node1_go_to_node1_cpus(tmp_path):
    """irq_affinity = "local-node" on a PCIe NIC on node 1: its MSI-X IRQs move to node 1's CPUs; revert restores."""
    name = lab_nic()
    irqs = [i for i in nic_irqs(name) if Path("/proc/irq/%s/smp_affinity_list" % i).exists()]
    assert irqs
    node1 = read("/sys/devices/system/node/node1/cpulist")

    def affinity():
        return {i: read("/proc/irq/%s/smp_affinity_list" % i) for i in irqs}
    # Start with every IRQ allowed everywhere, so node 0's CPUs are in each (remote for this NIC).
    for i in irqs:
        Path("/proc/irq/%s/smp_affinity_list" % i).write_text("0-3")
    policy = policy_file(tmp_path, '[[net]]\nmatch = { name = "%s" }\nirq_affinity = "local-node"\n' % name)
    plan = json.loads(numatune("plan", "--policy", policy, "--format", "json")[1])
    assert "numa_node" not in json.dumps(plan["findings"]), plan["findings"]
    before, applied, _ = cycle(policy, affinity)
    cpus = set(expand(node1))
    for i, value in applied.items():
        assert set(expand(value)) <= cpus, (i, value)


def expand(cpulist):
    out = []
    for part in cpulist.split(","):
        lo, _, hi = part.partition("-")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def test_virtual_links_get_findings_not_irq_writes(tmp_path, bond):
    """irq_affinity on veth bond slaves (no PCI device, no IRQs, no node): findings for each, never a write."""
    policy = policy_file(tmp_path, '[[net]]\nmatch = { bond_slave_of = "labbond0" }\nirq_affinity = "local-node"\n')
    status, out, err = numatune("plan", "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert plan["changes"] == []
    targets = {f["target"] for f in plan["findings"] if f["family"] == "network"}
    assert {"labv0", "labv1"} <= targets
