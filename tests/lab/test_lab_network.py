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
    marker = json.loads(Path("/var/lib/numatune/confirm/%s.json" % txid).read_text())
    assert marker["state"] == "reverted"


def test_irq_numa_findings_where_the_guest_exposes_them(tmp_path, bond):
    """irq_affinity = "local-node" on veths (no PCI device, no IRQs, no NUMA node): findings, never a write."""
    policy = policy_file(tmp_path, '[[net]]\nmatch = { bond_slave_of = "labbond0" }\nirq_affinity = "local-node"\n')
    status, out, err = numatune("plan", "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert plan["changes"] == []
    targets = {f["target"] for f in plan["findings"] if f["family"] == "network"}
    print(json.dumps(plan["findings"], indent=1))
    assert {"labv0", "labv1"} <= targets
