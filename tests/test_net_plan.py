"""The network family on roots built from the real capture
40intel64-2g2n4c+pcilocality (4 nodes; eth0-3 bnx2 with numa_node -1, ib0
ib_qib on node 2), plus the few files no capture has: /proc/interrupts, MSI
vectors, IRQ affinities, a bond, the ethtool snapshot file and the
distribution's network configuration."""
import json
import os
import shutil

import pytest

from conftest import _unpack, install_numatune, tree_digest, write

CAPTURE = "40intel64-2g2n4c+pcilocality"
IB0_DEV = "sys/devices/pci0000:40/0000:40:03.0/0000:43:00.0"
NODE2 = [2, 6, 10, 14, 18, 22, 26, 30, 34, 38]


def _ethtool(combined=4, rx_usecs=18):
    bnx2 = {"channels": {"current": {"rx": 0, "tx": 0, "other": 0, "combined": combined},
                         "max": {"rx": 0, "tx": 0, "other": 0, "combined": 8}},
            "coalesce": {"current": {"rx-usecs": rx_usecs, "rx-frames": 6, "tx-usecs": 80, "adaptive-rx": 0}},
            "ring": {"current": {"rx": 255, "tx": 255}, "max": {"rx": 4080, "tx": 255}},
            "rx_flow_hash": {"current": {"tcp4": "sdfn", "udp4": "sd"}}}
    ifaces = {n: json.loads(json.dumps(bnx2)) for n in ("eth0", "eth1", "eth2", "eth3")}
    ifaces["ib0"] = {"channels": None, "coalesce": None, "ring": None, "rx_flow_hash": None}
    return {"version": 1, "interfaces": ifaces}


def _interrupts(rows):
    head = " " * 11 + "".join("CPU%-8d" % c for c in range(40)) + "\n"
    lines = []
    for irq, per_cpu, name in rows:
        counts = [per_cpu.get(c, 0) for c in range(40)]
        lines.append("%4d: %s  IR-PCI-MSI-edge  %s\n" % (irq, " ".join("%10d" % n for n in counts), name))
    return head + "".join(lines)


def build(root):
    """The capture plus IRQs, a bond and persistence files."""
    write(root, "/numatune-snapshot/ethtool.json", json.dumps(_ethtool(), indent=1))
    for irq in (70, 71):
        write(root, "%s/msi_irqs/%d" % (IB0_DEV, irq), "msi\n")
        write(root, "/proc/irq/%d/smp_affinity_list" % irq, "0-39\n")
    # eth0's vectors are named in /proc/interrupts (no msi_irqs on bnx2 here).
    write(root, "/proc/irq/80/smp_affinity_list", "0-39\n")
    write(root, "/proc/interrupts", _interrupts([(70, {0: 5000, 4: 200}, "ib_qib"), (71, {0: 7000}, "ib_qib"),
                                                 (80, {1: 30}, "eth0-0")]))
    write(root, "/proc/net/route", "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
                                   "eth0\t00000000\t0100A8C0\t0003\t0\t0\t0\t00000000\n"
                                   "eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n")
    write(root, "/etc/sysconfig/network-scripts/ifcfg-eth0",
          'DEVICE=eth0\nBOOTPROTO=none\nETHTOOL_OPTS="-K eth0 gro off"\n')
    write(root, "/etc/NetworkManager/system-connections/eth1.nmconnection",
          "[connection]\nid=eth1\ntype=ethernet\ninterface-name=eth1\n\n[ipv4]\nmethod=auto\n", mode=0o600)
    bond = root / "sys/class/net/bond0"
    write(root, "/sys/class/net/bond0/mtu", "1500\n")
    write(root, "/sys/class/net/bond0/bonding/mode", "balance-rr 0\n")
    write(root, "/sys/class/net/bond0/bonding/xmit_hash_policy", "layer2 0\n")
    write(root, "/sys/class/net/bond0/bonding/miimon", "100\n")
    write(root, "/sys/class/net/bond0/bonding/slaves", "eth2 eth3\n")
    write(root, "/etc/sysconfig/network-scripts/ifcfg-bond0",
          'DEVICE=bond0\nTYPE=Bond\nBONDING_OPTS="mode=balance-rr miimon=100 lacp_rate=fast"\n')
    (root / "sys/class/net/eth3/mtu").write_text("9000\n")
    assert bond.is_dir()
    install_numatune(root)      # as the RPM installs it: the boot unit that redoes ib0's IRQs can name it
    return root


POLICY = """
[[net]]
match = { driver = "bnx2" }
mtu = 9000
coalesce = { rx-usecs = 0 }
channels = { combined = 8 }
ring = { rx = 8192 }
rx_flow_hash = { udp4 = "sdfn" }
why = "interconnect"

[[net]]
match = { name = "ib0" }
coalesce = { rx-usecs = 0 }
irq_affinity = "local-node"

[[net]]
match = { mac = "00:00:00:00:00:01" }
mtu = 9000

[[bond]]
name = "bond0"
mode = "802.3ad"
xmit_hash_policy = "layer3+4"
miimon = 100
"""


@pytest.fixture(scope="module")
def shared(capture_cache, tmp_path_factory):
    """One built root for the tests that only read (a copy of 11,000 files is slow)."""
    d = tmp_path_factory.mktemp("net")
    root = d / "root"
    shutil.copytree(_unpack(CAPTURE, capture_cache), root, symlinks=True)
    build(root)
    before = tree_digest(root)
    yield root, write(d, "net.toml", POLICY)
    # Plans, refused policies and facts never write: the root is as built.
    assert tree_digest(root) == before, "a read-only test changed the shared root"


@pytest.fixture
def host(shared):
    return shared


@pytest.fixture
def private(capture, tmp_path):
    """A root of the test's own, for tests that write."""
    return build(capture(CAPTURE)), write(tmp_path, "net.toml", POLICY)


def _plan(cli, root, policy):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    return ({c["id"]: c for c in plan["changes"]}, {f["id"]: f for f in plan["findings"]},
            {c["rule"] for c in plan["compliant"]})


def test_facts_of_the_capture(host):
    from numatune.families.network import facts as net
    from numatune.root import Root
    facts = net.read(Root(str(host[0])), names=["eth0", "ib0"])
    ib0, eth0 = facts["interfaces"]["ib0"], facts["interfaces"]["eth0"]
    assert (ib0["driver"], ib0["pci"], ib0["numa_node"], ib0["mtu"]) == ("ib_qib", "0000:43:00.0", 2, 2044)
    assert sorted(ib0["irqs"]) == ["70", "71"]
    assert ib0["irqs"]["70"]["affinity"] == list(range(40))
    assert (eth0["driver"], eth0["pci"], eth0["numa_node"], eth0["speed"]) == ("bnx2", "0000:02:00.0", -1, 1000)
    assert list(eth0["irqs"]) == ["80"]
    assert eth0["rx_queues"] == 8
    assert eth0["persist"]["kind"] == "ifcfg"
    assert facts["interfaces"]["eth3"]["master"] == "bond0"
    assert facts["interfaces"]["bond0"]["bonding"]["slaves"] == ["eth2", "eth3"]
    assert facts["default_route"] == ["eth0"]


def test_plan_changes_and_findings(host, cli):
    changes, findings, compliant = _plan(cli, *host)
    assert changes["net.mtu:eth0"]["current"] == "mtu 1500" and changes["net.mtu:eth0"]["desired"] == "mtu 9000"
    assert "net.mtu:eth3" not in changes and "net.mtu:eth3" in compliant
    # eth0 carries the default route: a confirm window is on by default.
    assert changes["net.mtu:eth0"]["needs_confirm"] and not changes["net.mtu:eth1"]["needs_confirm"]
    assert changes["net.coalesce:eth1"]["current"] == "rx-usecs 18"
    assert changes["net.channels:eth2"]["desired"] == "combined 8"
    assert changes["net.rx_flow_hash:eth2"]["writes"][0]["args"]["values"] == {"udp4": "sdfn"}
    # Above the driver's maximum and unsupported by ib_qib: findings, no writes.
    assert "net.limit:ring.rx:eth0" in findings and "net.ring:eth0" not in changes
    assert findings["net.unsupported:coalesce:ib0"]["message"].startswith("ib_qib does not support coalesce")
    assert "net.coalesce:ib0" not in changes
    # ib0 sits on node 2; its IRQs ran on node 0 (CPUs 0 and 4).
    assert "served on other nodes" in findings["net.remote_irq:ib0"]["message"]
    assert findings["net.irq_skew"]["target"] == "node0"
    assert changes["net.irq:ib0:70"]["desired"] == "2" and changes["net.irq:ib0:71"]["desired"] == "6"
    assert "net.irq.nonode:eth0" not in findings  # eth0 has no irq_affinity rule
    assert "net.bond_mtu:bond0" in findings
    # The mode of a bond that is up with slaves is not changed live; its hash policy is.
    assert "kernel changes a bond's mode only while it is down" in findings["net.bond.mode:bond0"]["message"]
    assert "net.bond.miimon:bond0" in compliant
    bond = changes["net.bond:bond0"]
    assert (bond["current"], bond["desired"]) == ("xmit_hash_policy layer2", "xmit_hash_policy layer3+4")
    assert changes["net.bond.persist:bond0"]["writes"][0]["editor"] == "net_ifcfg_bond"
    assert "net.nomatch:2" in findings
    # Persistence: ifcfg for eth0, NetworkManager for eth1, .link files elsewhere.
    assert changes["net.persist:eth0"]["writes"][0]["editor"] == "net_ifcfg"
    assert changes["net.persist:eth1"]["writes"][0]["editor"] == "net_nm"
    assert changes["net.persist:eth2"]["writes"][0]["path"] == "/etc/systemd/network/70-numatune-eth2.link"
    assert "net.notpersisted:rx_flow_hash.udp4:eth1" in findings


def test_apply_converges_and_revert_is_exact(private, cli):
    root, policy = private
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0")
    assert status == 0, err + out
    assert (root / "sys/class/net/eth0/mtu").read_text() == "9000\n"
    assert (root / "proc/irq/70/smp_affinity_list").read_text() == "2\n"
    snap = json.loads((root / "numatune-snapshot/ethtool.json").read_text())["interfaces"]
    assert snap["eth1"]["coalesce"]["current"]["rx-usecs"] == 0
    assert snap["eth1"]["coalesce"]["current"]["tx-usecs"] == 80
    assert snap["eth2"]["rx_flow_hash"]["current"] == {"tcp4": "sdfn", "udp4": "sdfn"}
    ifcfg = (root / "etc/sysconfig/network-scripts/ifcfg-eth0").read_text()
    assert "MTU=9000" in ifcfg and "-K eth0 gro off" in ifcfg and "-C eth0 rx-usecs 0" in ifcfg
    assert "-N eth0 rx-flow-hash udp4 sdfn" in ifcfg and "BOOTPROTO=none" in ifcfg
    nm = (root / "etc/NetworkManager/system-connections/eth1.nmconnection")
    assert "[ethernet]\nmtu=9000" in nm.read_text() and "coalesce-rx-usecs=0" in nm.read_text()
    assert oct(nm.stat().st_mode & 0o777) == "0o600"
    link = (root / "etc/systemd/network/70-numatune-eth2.link").read_text()
    assert "MACAddress=78:2b:cb:38:ac:1f" in link and "MTUBytes=9000" in link and "RxCoalesceSec=0us" in link
    assert "NamePolicy=" in link  # ours replaces 99-default.link for this NIC
    assert (root / "sys/class/net/bond0/bonding/xmit_hash_policy").read_text() == "layer3+4\n"
    bonding = (root / "etc/sysconfig/network-scripts/ifcfg-bond0").read_text()
    assert "BONDING_OPTS='mode=802.3ad miimon=100 lacp_rate=fast xmit_hash_policy=layer3+4'" in bonding

    changes, _, _ = _plan(cli, root, policy)
    assert changes == {}

    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


def test_a_revert_cut_by_an_mtu_write_error_is_finished_by_the_next(private, cli, monkeypatch):
    # The fault campaign (#28, ethtool revert write EIO): the copy's sysfs mtu file was
    # truncated, then its write failed; the next revert read the empty file as an int
    # and failed again, leaving the MTU of eth2 at 9000 for good.
    from numatune.families.network import netdev
    root, policy = private
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0")
    assert status == 0, err + out
    real = netdev._write

    def cut(root_, path, value):
        if path.endswith("/eth2/mtu"):
            open(root_.join(path), "w").close()
            raise OSError(5, "Input/output error")
        real(root_, path, value)
    monkeypatch.setattr(netdev, "_write", cut)
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 1 and "FAILED eth2 mtu" in out, err + out
    monkeypatch.setattr(netdev, "_write", real)
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


def test_a_directory_an_older_write_made_goes_with_the_newer_write_a_revert_finishes(private, cli, monkeypatch):
    # The fault campaign (#28, ethtool revert, unlink EIO): the boot unit under
    # /etc/systemd/system could not be removed; the .link file's undo left /etc/systemd
    # (not empty then), and the next revert, undoing only the unit, left it empty.
    from numatune.apply import file as filekind
    root, policy = private
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0")
    assert status == 0, err + out

    class Os:
        def __getattr__(self, name):
            return getattr(os, name)

        def unlink(self, path, *a, **k):
            if "/etc/systemd/system/" in str(path):
                raise OSError(5, os.strerror(5), path)
            return os.unlink(path, *a, **k)
    monkeypatch.setattr(filekind, "os", Os())
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 1, err + out
    monkeypatch.undo()
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


def test_snapshot_without_ethtool_file_says_so(host, cli, tmp_path):
    root, policy = host
    snap = root / "numatune-snapshot/ethtool.json"
    saved = tmp_path / "ethtool.json"
    shutil.move(str(snap), str(saved))
    try:
        changes, findings, _ = _plan(cli, root, policy)
    finally:
        shutil.move(str(saved), str(snap))
    assert "net.unknown:coalesce:eth0" in findings and "net.coalesce:eth0" not in changes
    assert "net.mtu:eth0" in changes  # sysfs still tells the MTU


def test_irqbalance_fights_irq_affinity(host, cli):
    root, policy = host
    comm = write(root, "/proc/4242/comm", "irqbalance\n")
    try:
        _, findings, _ = _plan(cli, root, policy)
    finally:
        shutil.rmtree(comm.parent)
    assert "fights irq_affinity" in findings["net.irqbalance:ib0"]["message"]


def test_unknown_numa_node_is_said(host, cli, tmp_path):
    root, _ = host
    policy = write(tmp_path, "irq.toml", '[[net]]\nmatch = { name = "eth*" }\nirq_affinity = "local-node"\n')
    changes, findings, _ = _plan(cli, root, policy)
    assert "numa_node -1" in findings["net.irq.nonode:eth0"]["message"]
    assert not [c for c in changes if c.startswith("net.irq:")]


@pytest.mark.parametrize("text, message", [
    ('[[net]]\nmtu = 9000\n', "net[0] has no match"),
    ('[[net]]\nmatch = { name = "eth0" }\n', "net[0] sets nothing"),
    ('[[net]]\nmatch = { name = "eth0" }\nrx_flow_hash = { udp4 = "sdx" }\n', "not a valid value"),
    ('[[net]]\nmatch = { name = "eth0" }\ncoalesce = { rx-usec = 0 }\n', "did you mean 'rx-usecs'"),
    ('[[net]]\nmatch = { name = "eth0" }\nmtu = 10\n', "below the minimum"),
    ('[[net]]\nmatch = { nam = "eth0" }\nmtu = 9000\n', "did you mean 'name'"),
    ('[[bond]]\nname = "bond0"\nmode = "lacp"\n', "is not one of"),
])
def test_bad_policies_are_one_line_errors(host, cli, tmp_path, text, message):
    root, _ = host
    policy = write(tmp_path, "bad.toml", text)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    # (the shared fixture checks that nothing under the root changed)


def test_negative_confirm_window_is_refused(host, cli):
    root, policy = host
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "-5")
    assert status == 2 and "cannot be negative" in err
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within",
                           "99999999999999999999")
    assert status == 2 and "out of range" in err and len(err.splitlines()) == 1


def test_rac_interconnect_policy_is_opt_in(host, cli):
    from numatune.policy.stack import load
    from numatune.root import Root
    default = load([], Root(str(host[0]))).data
    assert "net" not in default and "bond" not in default
    rac = load(["rac-interconnect"], Root(str(host[0]))).data
    assert rac["net"][0]["mtu"] == 9000 and rac["bond"][0]["mode"] == "802.3ad"
    status, out, err = cli("plan", "--root", host[0], "--policy", "rac-interconnect")
    assert status == 0, err
    assert "matches no interface (name=bond1)" in out


def test_core_and_offline_plans_do_not_import_pyroute2(host):
    import subprocess
    import sys
    from conftest import REPO
    root, policy = host
    code = ("import sys; from numatune.cli import main; main(['plan', '--root', %r]); "
            "main(['plan', '--root', %r, '--policy', %r]); "
            "sys.stderr.write('LOADED=%%s' %% [m for m in sys.modules if m.startswith('pyroute2')])"
            % (str(root), str(root), str(policy)))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO),
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 0, proc.stderr
    assert "LOADED=[]" in proc.stderr


def test_mode_of_a_bond_that_is_down_changes_live(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/sys/class/net/bond9/mtu", "1500\n")
    write(root, "/sys/class/net/bond9/operstate", "down\n")
    write(root, "/sys/class/net/bond9/bonding/mode", "balance-rr 0\n")
    write(root, "/sys/class/net/bond9/bonding/slaves", "\n")
    write(root, "/etc/NetworkManager/system-connections/bond9.nmconnection",
          "[connection]\nid=bond9\ntype=bond\ninterface-name=bond9\n\n[bond]\nmode=balance-rr\n")
    policy = write(tmp_path, "b.toml", '[[bond]]\nname = "bond9"\nmode = "802.3ad"\n')
    before = tree_digest(root)
    changes, findings, _ = _plan(cli, root, policy)
    assert changes["net.bond:bond9"]["desired"] == "mode 802.3ad" and "net.bond.persist:bond9" in changes
    assert "net.bond.noslaves:bond9" in findings
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err + out
    assert (root / "sys/class/net/bond9/bonding/mode").read_text() == "802.3ad\n"
    assert "[bond]\nmode=802.3ad" in (root / "etc/NetworkManager/system-connections/bond9.nmconnection").read_text()
    assert _plan(cli, root, policy)[0] == {}
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


def test_virtio_net_reads_node_and_irqs_from_its_pci_function(tmp_path):
    """Seen on the QEMU lab's real kernel: a virtio-net NIC's `device` is virtioN, whose parent PCI function
    holds numa_node, local_cpulist and msi_irqs; they are read from there, not reported missing."""
    from numatune.families.network import facts as net_facts
    from numatune.root import Root
    fn = "sys/devices/pci0000:80/0000:80:00.0/0000:81:00.0"
    for path, text in (("numa_node", "1\n"), ("local_cpulist", "2-3\n"), ("msi_irqs/32", "msix\n"),
                       ("msi_irqs/33", "msix\n"), ("virtio3/net/ens1/mtu", "1500\n"),
                       ("virtio3/net/ens1/type", "1\n")):
        write(tmp_path, "%s/%s" % (fn, path), text)
    (tmp_path / fn / "virtio3/driver").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "sys/bus/virtio/drivers/virtio_net").mkdir(parents=True)
    os.symlink("../../../../bus/virtio/drivers/virtio_net", tmp_path / fn / "virtio3/driver")
    os.symlink("../../../virtio3", tmp_path / fn / "virtio3/net/ens1/device")
    (tmp_path / "sys/class/net").mkdir(parents=True)
    os.symlink("../../devices/pci0000:80/0000:80:00.0/0000:81:00.0/virtio3/net/ens1",
               tmp_path / "sys/class/net/ens1")
    info = net_facts.read_interface(Root(str(tmp_path)), "ens1")
    assert (info["driver"], info["pci"], info["numa_node"], info["local_cpus"], info["msi_irqs"]) == \
        ("virtio_net", "0000:81:00.0", 1, [2, 3], ["32", "33"])
