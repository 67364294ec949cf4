"""A plan under --root never loads the live host's ethtool ioctl code
(rxnfc: ctypes structs, socket, fcntl): the RSS hash letters are checked and
compared by plain Python (#38: start-up is most of a many-NIC plan)."""
import os
import subprocess
import sys

from conftest import REPO, write
from test_net_plan import CAPTURE, POLICY, build

PROBE = ("import sys\nfrom numatune.cli import main\nstatus = main(sys.argv[1:])\n"
         "print(' '.join(m for m in ('socket', 'fcntl', 'numatune.families.network.rxnfc') if m in sys.modules))")


def test_a_plan_under_root_loads_no_ioctl_code(capture, tmp_path):
    root = build(capture(CAPTURE))
    policy = write(tmp_path, "net.toml", POLICY)
    assert "rx_flow_hash" in POLICY
    done = subprocess.run([sys.executable, "-c", PROBE, "plan", "--root", str(root), "--policy", str(policy)],
                          env=dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1"), cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert "rx-flow-hash" in done.stdout, done.stderr[-500:]
    assert done.stdout.splitlines()[-1] == ""


def test_each_keyfile_is_read_once_for_all_nics(tmp_path, monkeypatch):
    """Every NIC looks for its name in every NetworkManager keyfile and .network file: the files are read
    once per plan, not once per NIC (256 NICs with a keyfile each read 65,536 files, #38)."""
    from numatune.families.network import facts as net
    from numatune.root import Root
    nm, networkd = tmp_path / "etc/NetworkManager/system-connections", tmp_path / "etc/systemd/network"
    nm.mkdir(parents=True)
    networkd.mkdir(parents=True)
    for i in range(12):
        (tmp_path / ("sys/class/net/eth%d" % i)).mkdir(parents=True)
        (tmp_path / ("sys/class/net/eth%d/mtu" % i)).write_text("1500\n")
        if i % 2:
            (nm / ("eth%d.nmconnection" % i)).write_text("[connection]\ninterface-name=eth%d\n" % i)
    (nm / "notes.txt").write_text("interface-name=eth0\n")
    (networkd / "10-eth0.network").write_text("[Match]\nName=eth0\n\n[Link]\nMTUBytes=9000\n")
    root = Root(str(tmp_path))
    reads = []
    real = Root.read_text
    monkeypatch.setattr(Root, "read_text", lambda self, path, default=None: reads.append(path) or real(self, path,
                                                                                                       default))
    got = net.read(root, None, ethtool_groups=False)["interfaces"]
    assert {n: i["persist"]["kind"] for n, i in got.items()} == {"eth%d" % i: "nm" if i % 2 else "link"
                                                                 for i in range(12)}
    assert got["eth0"]["persist"]["networkd"]["path"] == "/etc/systemd/network/10-eth0.network"
    assert got["eth2"]["persist"]["networkd"] is None
    config = [p for p in reads if p.startswith(("/etc/NetworkManager/", "/etc/systemd/network/1"))]
    assert sorted(config) == sorted(set(config)), "a configuration file read more than once"


def test_each_nics_ifcfg_file_is_looked_up_once(tmp_path, monkeypatch):
    """A NIC's ifcfg file is read, not first stat'ed and then read (#38: 256 NICs, a lookup each); one
    that is there but does not read (a directory, no permission) is still the NIC's file."""
    from numatune.families.network import facts as net
    from numatune.root import Root
    scripts = tmp_path / "etc/sysconfig/network-scripts"
    scripts.mkdir(parents=True)
    for i in range(4):
        (tmp_path / ("sys/class/net/eth%d" % i)).mkdir(parents=True)
        (tmp_path / ("sys/class/net/eth%d/mtu" % i)).write_text("1500\n")
    (scripts / "ifcfg-eth0").write_text("DEVICE=eth0\nMTU=1500\n")
    (scripts / "ifcfg-eth1").mkdir()
    root = Root(str(tmp_path))
    looked = []
    real = Root.exists
    monkeypatch.setattr(Root, "exists", lambda self, path: looked.append(path) or real(self, path))
    got = net.read(root, None, ethtool_groups=False)["interfaces"]
    assert [(got[n]["persist"]["kind"], got[n]["persist"].get("text")) for n in ("eth0", "eth1", "eth2")] == [
        ("ifcfg", "DEVICE=eth0\nMTU=1500\n"), ("ifcfg", None), ("link", None)]
    assert "/etc/sysconfig/network-scripts/ifcfg-eth0" not in looked


def test_a_nic_with_a_driver_link_is_not_asked_again_whether_its_device_exists(tmp_path, monkeypatch):
    """The readlink of device/driver opens the device: an exists() of it beside is a lookup per NIC for
    nothing (#38: 256 NICs); a NIC without a driver link is still asked, and one without a device has none."""
    from numatune.families.network import facts as net
    from numatune.root import Root
    for i, (driver, device) in enumerate(((True, True), (False, True), (False, False))):
        nic = tmp_path / ("sys/class/net/eth%d" % i)
        nic.mkdir(parents=True)
        (nic / "mtu").write_text("1500\n")
        if device:
            dev = tmp_path / ("sys/devices/pci0000:00/0000:00:0%d.0" % i)
            dev.mkdir(parents=True)
            (dev / "numa_node").write_text("0\n")
            (nic / "device").symlink_to(os.path.relpath(str(dev), str(nic)))
            if driver:
                (tmp_path / "sys/bus/pci/drivers/e1000e").mkdir(parents=True)
                (dev / "driver").symlink_to(os.path.relpath(str(tmp_path / "sys/bus/pci/drivers/e1000e"), str(dev)))
    root = Root(str(tmp_path))
    looked = []
    real = Root.exists
    monkeypatch.setattr(Root, "exists", lambda self, path: looked.append(path) or real(self, path))
    got = {n: net.read_interface(root, n) for n in ("eth0", "eth1", "eth2")}
    assert [(got[n]["virtual"], got[n]["driver"], got[n]["pci"], got[n]["numa_node"]) for n in sorted(got)] == [
        (False, "e1000e", "0000:00:00.0", 0), (False, None, "0000:00:01.0", 0), (True, None, None, None)]
    assert "/sys/class/net/eth0/device" not in looked
    assert "/sys/class/net/eth1/device" in looked and "/sys/class/net/eth2/device" in looked
