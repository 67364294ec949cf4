"""The network family and confirm-or-revert on the real kernel: a network
namespace of our own with a veth pair, numatune run inside it through
`ip netns exec` (which remounts /sys for the namespace) and `unshare -m`
with a private /var/lib, so its journal and lock are the test's own. Values
are checked through netlink (pyroute2) from inside the namespace. The host's
own interfaces are never touched."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root"),
    pytest.mark.skipif(not shutil.which("ip") or not shutil.which("unshare"), reason="needs iproute2 and unshare"),
]
pyroute2 = pytest.importorskip("pyroute2", reason="pyroute2 is a dependency: pip install -e .")

PROBE = """
import json, sys
from pyroute2 import IPRoute, Ethtool
name = sys.argv[1]
with IPRoute() as ipr:
    mtu = ipr.link("get", ifname=name)[0].get_attr("IFLA_MTU")
eth = Ethtool()
ch = eth.get_channels(name)
eth.close()
print(json.dumps({"mtu": mtu, "rx": ch.rx_count, "tx": ch.tx_count}))
"""


class Netns:
    """A namespace with one veth pair; numatune runs inside with its own /var/lib."""

    def __init__(self, tmp_path):
        tag = "%05d%03d" % (os.getpid() % 100000, int(time.time() * 1000) % 1000)
        self.name = "numatune-t%s" % tag
        self.a, self.b = "nta%s" % tag, "ntb%s" % tag
        self.varlib = tmp_path / "varlib"
        self.varlib.mkdir()
        subprocess.run(["ip", "netns", "add", self.name], check=True)
        try:
            subprocess.run(["ip", "-n", self.name, "link", "add", self.a, "type", "veth", "peer", "name", self.b],
                           check=True)
        except subprocess.CalledProcessError:
            self.close()
            raise

    def argv(self, *args):
        return (["ip", "netns", "exec", self.name, "unshare", "-m", "--propagation", "private",
                 "sh", "-c", 'mount --bind "$0" /var/lib && exec "$@"', str(self.varlib), sys.executable]
                + [str(a) for a in args])

    def env(self):
        return dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")

    def numatune(self, *args):
        proc = subprocess.run(self.argv("-m", "numatune", *args), capture_output=True, text=True, env=self.env(),
                              cwd=str(REPO), timeout=60)
        return proc.returncode, proc.stdout, proc.stderr

    def popen(self, *args):
        return subprocess.Popen(self.argv("-m", "numatune", *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=self.env(), cwd=str(REPO))

    def link(self, name):
        """MTU and channels of ``name`` through netlink, from inside the namespace."""
        out = subprocess.run(["ip", "netns", "exec", self.name, sys.executable, "-c", PROBE, name],
                             capture_output=True, text=True, check=True, env=self.env())
        return json.loads(out.stdout)

    def marker(self, txid):
        path = self.varlib / "numatune" / "confirm" / ("%s.json" % txid)
        return json.loads(path.read_text()) if path.exists() else None

    def close(self):
        subprocess.run(["ip", "netns", "del", self.name], check=False)


@pytest.fixture
def netns(tmp_path):
    ns = Netns(tmp_path)
    try:
        yield ns
    finally:
        ns.close()


@pytest.fixture
def policy(tmp_path, netns):
    path = tmp_path / "veth.toml"
    path.write_text('[[net]]\nmatch = { name = "%s" }\nmtu = 9000\nchannels = { rx = 2, tx = 2 }\n'
                    'coalesce = { rx-usecs = 0 }\nring = { rx = 512 }\nrx_flow_hash = { udp4 = "sdfn" }\n'
                    'why = "live test"\n' % netns.a)
    return path


def test_veth_mtu_and_channels_apply_and_revert(netns, policy):
    before = netns.link(netns.a)
    assert before["mtu"] == 1500 and (before["rx"], before["tx"]) == (1, 1)
    status, out, err = netns.numatune("plan", "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert sorted(c["id"] for c in plan["changes"]) == sorted(["net.mtu:" + netns.a, "net.channels:" + netns.a])
    findings = {f["id"]: f["message"] for f in plan["findings"]}
    for group in ("coalesce", "ring", "rx_flow_hash"):
        assert findings["net.unsupported:%s:%s" % (group, netns.a)].startswith("veth does not support")

    status, out, err = netns.numatune("apply", "--policy", policy, "--yes", "--format", "json")
    assert status == 0, err + out
    txid = json.loads(out)["txid"]
    assert netns.link(netns.a) == {"mtu": 9000, "rx": 2, "tx": 2}
    assert netns.link(netns.b)["mtu"] == 1500  # the peer is not matched
    # Only the two supported groups were journaled and written.
    status, out, err = netns.numatune("history", txid, "--format", "json")
    intents = [r["op"] for r in json.loads(out)["records"] if r["t"] == "intent"]
    assert sorted(op["group"] for op in intents) == ["channels", "mtu"]
    assert all(op["kind"] == "netdev" for op in intents)

    status, out, err = netns.numatune("plan", "--policy", policy, "--format", "json")
    assert json.loads(out)["changes"] == []

    status, out, err = netns.numatune("revert", "--last")
    assert status == 0, err + out
    assert netns.link(netns.a) == before


def _wait_for_line(proc, text, timeout=120):
    deadline = time.time() + timeout
    lines = []
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if text in line:
            return lines
    raise AssertionError("no %r in %r" % (text, lines))


def _wait_for_state(netns, txid, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        marker = netns.marker(txid)
        if marker and marker["state"] != "pending":
            return marker
        time.sleep(0.1)
    raise AssertionError("transaction %s still pending: %r" % (txid, netns.marker(txid)))


def _txid(lines):
    line = [x for x in lines if "transaction " in x and "applied" in x][0]
    return line.split()[1].rstrip(":")


def test_sigkilled_apply_is_reverted_after_the_window(netns, policy):
    proc = netns.popen("apply", "--policy", policy, "--yes", "--confirm-within", "2")
    try:
        lines = _wait_for_line(proc, "confirm within")
        txid = _txid(lines)
        assert netns.link(netns.a)["mtu"] == 9000
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        marker = _wait_for_state(netns, txid)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert marker["state"] == "reverted"
    assert marker["expired_at"] >= marker["deadline"]  # not before the window closed
    assert netns.link(netns.a) == {"mtu": 1500, "rx": 1, "tx": 1}
    status, out, err = netns.numatune("history", "--format", "json")
    assert [t["state"] for t in json.loads(out) if t["txid"] == txid] == ["reverted"]


def test_confirmed_changes_stay(netns, policy):
    proc = netns.popen("apply", "--policy", policy, "--yes", "--confirm-within", "2")
    try:
        lines = _wait_for_line(proc, "confirm within")
        txid = _txid(lines)
        status, out, err = netns.numatune("confirm")
        assert status == 0, err
        assert "%s confirmed" % txid in out
        rest, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "confirmed: the changes stay" in rest
    time.sleep(max(0, netns.marker(txid)["deadline"] - time.time()) + 0.6)
    assert netns.marker(txid)["state"] == "confirmed"
    assert netns.link(netns.a) == {"mtu": 9000, "rx": 2, "tx": 2}
    status, out, err = netns.numatune("confirm", txid)
    assert status == 2 and "already confirmed" in err
    status, out, err = netns.numatune("revert", txid)
    assert status == 0, err
    assert netns.link(netns.a)["mtu"] == 1500


def test_default_route_interface_gets_a_window_by_default(netns, policy):
    for cmd in (["addr", "add", "10.77.0.1/24", "dev", netns.a], ["link", "set", netns.a, "up"],
                ["link", "set", netns.b, "up"], ["route", "add", "default", "via", "10.77.0.2", "dev", netns.a]):
        subprocess.run(["ip", "-n", netns.name] + cmd, check=True)
    status, out, err = netns.numatune("plan", "--policy", policy, "--format", "json")
    changes = {c["id"]: c for c in json.loads(out)["changes"]}
    assert changes["net.mtu:" + netns.a]["needs_confirm"] is True
    proc = netns.popen("apply", "--policy", policy, "--yes")
    try:
        lines = _wait_for_line(proc, "confirm within")
        assert "confirm within 120s" in lines[-1]
        status, out, err = netns.numatune("confirm", _txid(lines))
        assert status == 0, err
        rest, err = proc.communicate(timeout=60)  # a loaded machine: the confirm is seen at its next poll
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert netns.link(netns.a)["mtu"] == 9000
    status, out, err = netns.numatune("revert", "--last")
    assert status == 0, err
    assert netns.link(netns.a)["mtu"] == 1500


def test_snapshot_plans_offline_like_the_live_namespace(netns, policy, tmp_path):
    import tarfile
    status, out, err = netns.numatune("snapshot", "--out", tmp_path / "ns.tar.gz")
    assert status == 0, err
    root = tmp_path / "ns"
    with tarfile.open(tmp_path / "ns.tar.gz") as tar:
        tar.extractall(root, filter="fully_trusted") if hasattr(tarfile, "data_filter") else tar.extractall(root)
    snap = json.loads((root / "numatune-snapshot/ethtool.json").read_text())["interfaces"][netns.a]
    assert snap["channels"]["current"]["rx"] == 1 and snap["channels"]["max"]["rx"] == 2
    assert snap["coalesce"] is None and snap["ring"] is None and snap["rx_flow_hash"] is None
    status, live, err = netns.numatune("plan", "--policy", policy, "--format", "json")
    assert status == 0, err
    status, offline, err = netns.numatune("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    live, offline = json.loads(live), json.loads(offline)
    assert [(c["id"], c["current"], c["desired"]) for c in offline["changes"]] == \
           [(c["id"], c["current"], c["desired"]) for c in live["changes"]]
    assert sorted(f["id"] for f in offline["findings"]) == sorted(f["id"] for f in live["findings"])
