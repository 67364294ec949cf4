"""The RHEL 6/7 route: packaging/numatune-snapshot.sh on the live host captures
what `numatune snapshot` captures, every area: the /sys/block and /sys/class/net
links and the files behind them, /proc/irq affinities, and ethtool's state, as
its plain text (`-i -k -c -g -l -n`, `-n IF rx-flow-hash FLOW`), which the
network family parses on the planning side into what the JSON snapshot holds.

Both captures are taken of this machine (real kernel, real ethtool), with dash
and busybox sh where installed; a policy with every area's section plans the
same from both."""
import json
import os
import shutil
import subprocess
import tarfile

import pytest

from conftest import REPO, run_cli, write
from numatune.families.network import ethtool_text, nic
from numatune.root import Root

SCRIPT = REPO / "packaging" / "numatune-snapshot.sh"
SHELLS = [s for s in (["dash"], ["busybox", "sh"]) if shutil.which(s[0])]
POLICY = """[policy]
name = "every-area"
extends = ["oracle-numa"]

[hugepages]
size = "2M"
count = 16

[[block]]
match = { name = "*" }
read_ahead_kb = 4096
nr_requests = 64

[[net]]
match = { name = "*" }
coalesce = { rx-usecs = 7 }
ring = { rx = 128 }
channels = { combined = 1 }
rx_flow_hash = { udp4 = "sdfn" }
irq_affinity = "local-node"

[cpu]
governor = "performance"

[[cpuset]]
name = "oracle"
nodes = [0]
"""


def _nics():
    return [n for n in os.listdir("/sys/class/net") if n != "lo" and os.path.isdir("/sys/class/net/" + n)]


def _ethtool_text(name):
    """One interface's capture, as the sh script writes it."""
    text = ""
    for args in ethtool_text.OPTIONS + tuple("-n rx-flow-hash %s" % f for f in nic.FLOWS):
        opt, *rest = args.split()
        proc = subprocess.run(["ethtool", opt, name] + rest, capture_output=True, text=True)
        text += "### ethtool %s %s%s\n%s### exit %d\n" % (opt, name, "".join(" " + r for r in rest),
                                                          proc.stdout + proc.stderr, proc.returncode)
    return text


def test_ethtool_text_parses_to_what_netlink_reads():
    """Every NIC of this host: ethtool's text equals pyroute2's live read, group by group."""
    if not shutil.which("ethtool"):
        pytest.skip("ethtool is not installed")
    pytest.importorskip("pyroute2")
    names = _nics()
    if not names:
        pytest.skip("no network interface here")
    for name in names:
        assert ethtool_text.parse(_ethtool_text(name)) == nic.read(name), name


OLD = """### ethtool -c eth2
Coalesce parameters for eth2:
Adaptive RX: on  TX: off
stats-block-usecs: 0
sample-interval: 0
pkt-rate-low: 0
pkt-rate-high: 0

rx-usecs: 3
rx-frames: 0
rx-usecs-irq: 0
rx-frames-irq: 0

tx-usecs: 0
tx-frames: 0
tx-usecs-irq: 0
tx-frames-irq: 256

rx-usecs-low: 0
rx-frame-low: 0
tx-usecs-low: 0
tx-frame-low: 25

### exit 0
### ethtool -g eth2
Ring parameters for eth2:
Pre-set maximums:
RX:		4096
RX Mini:	0
RX Jumbo:	0
TX:		4096

Current hardware settings:
RX:		512
RX Mini:	0
RX Jumbo:	0
TX:		512

### exit 0
### ethtool -l eth2
Cannot get device channel parameters
: Operation not supported
### exit 75
### ethtool -n eth2 rx-flow-hash tcp4
TCP over IPV4 flows use these fields for computing Hash flow key:
IP SA
IP DA
L4 bytes 0 & 1 [TCP/UDP src port]
L4 bytes 2 & 3 [TCP/UDP dst port]
### exit 0
### ethtool -n eth2 rx-flow-hash udp4
UDP over IPV4 flows use these fields for computing Hash flow key:
IP SA
IP DA
### exit 0
### ethtool -n eth2 rx-flow-hash tcp6
Cannot get RX network flow hashing options: Operation not supported
### exit 75
"""


def test_older_ethtool_text_and_unsupported_groups():
    """The RHEL 6/7 ethtool prints numbers where newer ones print n/a, and fails for what a driver lacks."""
    got = ethtool_text.parse(OLD)
    assert got["coalesce"]["current"]["rx-usecs"] == 3
    assert got["coalesce"]["current"]["adaptive-rx"] == 1 and got["coalesce"]["current"]["adaptive-tx"] == 0
    assert got["coalesce"]["current"]["tx-frames-low"] == 25  # printed as "tx-frame-low"
    assert got["ring"] == {"current": {"rx": 512, "rx-mini": 0, "rx-jumbo": 0, "tx": 512},
                           "max": {"rx": 4096, "rx-mini": 0, "rx-jumbo": 0, "tx": 4096}}
    assert got["channels"] is None  # the driver lacks it: a finding, never a write
    assert got["rx_flow_hash"] == {"current": {"tcp4": "sdfn", "udp4": "sd", "tcp6": None}}


def test_ethtool_text_it_cannot_read_is_not_captured():
    """Unknown output is "not captured" (a warning at plan time), not a guess."""
    text = OLD.replace("rx-usecs: 3", "rx-usecs: three").replace("IP SA\n", "Something new\n", 1)
    got = ethtool_text.parse(text)
    assert "coalesce" not in got and got["ring"]["current"]["rx"] == 512
    assert "tcp4" not in got["rx_flow_hash"]["current"] and got["rx_flow_hash"]["current"]["udp4"] == "sd"


def _files(directory):
    out = {}
    for dirpath, dirs, names in os.walk(directory):
        # Links to directories (/sys/block/sda) are listed with the directories.
        for name in names + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, directory)
            out[rel] = os.readlink(path) if os.path.islink(path) else None
    return out


def _extract(tarball, dest):
    dest.mkdir()
    with tarfile.open(tarball) as tar:
        tar.extractall(dest, filter="fully_trusted") if hasattr(tarfile, "data_filter") else tar.extractall(dest)
    return dest


@pytest.fixture(scope="module")
def python_capture(tmp_path_factory):
    if not os.listdir("/sys/block") or not _nics():
        pytest.skip("this host has no block device or NIC to capture")
    base = tmp_path_factory.mktemp("py-capture")
    status, out, err = run_cli("snapshot", "--out", base / "py.tar.gz")
    assert status == 0, err
    return _extract(base / "py.tar.gz", base / "py")


@pytest.mark.parametrize("shell", SHELLS, ids=[s[0] for s in SHELLS])
def test_sh_and_python_capture_the_same_host_alike(shell, python_capture, tmp_path):
    proc = subprocess.run(shell + [str(SCRIPT), str(tmp_path / "sh.tar.gz")], capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "NUMATUNE_SNAPSHOT_ROOT"})
    assert proc.returncode == 0, proc.stderr
    sh_root = _extract(tmp_path / "sh.tar.gz", tmp_path / "sh")
    py, sh = _files(python_capture), _files(sh_root)
    ethtool = ethtool_text.TEXT_DIR.lstrip("/")

    def outside(files):
        return {k: v for k, v in files.items() if not k.startswith("numatune-snapshot/")}
    # The same files and the same links (the live extras included), every area.
    assert outside(py) == outside(sh)
    assert any(k.startswith("sys/block/") for k in sh) and any(k.startswith("sys/class/net/") for k in sh)
    assert any(k.startswith("proc/irq/") for k in sh) == any(k.startswith("proc/irq/") for k in py)

    # ethtool: the text the sh script kept parses to what the Python capture wrote as JSON.
    if shutil.which("ethtool"):
        assert any(k.startswith(ethtool + "/") for k in sh)
        captured = json.loads((python_capture / "numatune-snapshot" / "ethtool.json").read_text())["interfaces"]
        assert ethtool_text.read(Root(str(sh_root))) == captured

    # And a policy with every area's section plans the same from both captures (without ethtool, the
    # sh script cannot read a NIC's ethtool state: the network area differs, and says so).
    has_ethtool = bool(shutil.which("ethtool"))
    policy = write(tmp_path, "every.toml", POLICY)
    plans = []
    for root in (python_capture, sh_root):
        status, out, err = run_cli("plan", "--root", root, "--policy", policy, "--format", "json")
        assert status == 0, err
        doc = json.loads(out)
        plans.append({k: sorted(json.dumps(x, sort_keys=True) for x in doc[k]
                                if has_ethtool or x.get("family") != "network")
                      for k in ("changes", "findings", "compliant")})
        unknown = [x["id"] for x in doc["findings"] if x["id"].startswith("net.unknown:")]
    assert plans[0] == plans[1]
    if not has_ethtool:
        # The sh script reads NIC state only through ethtool; the plan says it was not captured.
        assert unknown, "without ethtool the sh capture's plan must say the NIC state is unknown"
        return
    ids = [json.loads(c)["id"] for c in plans[1]["changes"] + plans[1]["findings"]]
    # The [[block]] rule reached the devices (before, on the sh capture it matched nothing: OK).
    assert any(i.startswith("block.live:") for i in ids)
    assert not any(i.startswith("net.unknown:") for i in ids)  # every NIC's ethtool state was captured
