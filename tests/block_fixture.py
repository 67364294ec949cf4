"""Small sysfs trees with SCSI disks, multipath maps and udev database files,
laid out as a real kernel does (devices under /sys/devices, links from
/sys/block and /sys/class/block), for what this VM lacks."""
import os
from pathlib import Path

BLK_MQ = "[mq-deadline] kyber bfq none"


def _w(root, path, text):
    p = Path(root) / path.lstrip("/")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text if text.endswith("\n") else text + "\n")


def _link(root, path, target):
    p = Path(root) / path.lstrip("/")
    p.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(target, os.path.dirname(path)), p)


def _queue(root, block, scheduler, rotational, nr_requests=256, max_hw=1024, max_sectors=512, read_ahead=128):
    for name, value in (("scheduler", scheduler), ("nr_requests", nr_requests), ("rotational", rotational),
                        ("max_hw_sectors_kb", max_hw), ("max_sectors_kb", max_sectors), ("nomerges", 0),
                        ("read_ahead_kb", read_ahead), ("rq_affinity", 1)):
        _w(root, "%s/queue/%s" % (block, name), str(value))


def scsi_disk(root, name, minor, host=2, target=0, lun=0, vendor="3PARdata", model="VV", wwid=None,
              pci="0000:05:00.0", numa_node=1, scheduler=BLK_MQ, rotational=1, queue_depth=32,
              cache_type="write back", udev=None, sectors=209715200):
    """A SCSI disk behind an HBA at ``pci`` (NUMA node ``numa_node``)."""
    hctl = "%d:0:%d:%d" % (host, target, lun)
    pci_dir = "/sys/devices/pci0000:00/%s" % pci
    _w(root, pci_dir + "/numa_node", str(numa_node))
    sdev = "%s/host%d/target%d:0:%d/%s" % (pci_dir, host, host, target, hctl)
    _w(root, sdev + "/vendor", vendor.ljust(8))
    _w(root, sdev + "/model", model.ljust(16))
    if wwid:
        _w(root, sdev + "/wwid", wwid)
    _w(root, sdev + "/queue_depth", str(queue_depth))
    _w(root, "%s/scsi_disk/%s/cache_type" % (sdev, hctl), cache_type)
    block = "%s/block/%s" % (sdev, name)
    dev = "8:%d" % minor
    _w(root, block + "/dev", dev)
    _w(root, block + "/size", str(sectors))
    _w(root, block + "/uevent", "MAJOR=8\nMINOR=%d\nDEVNAME=%s\nDEVTYPE=disk" % (minor, name))
    (Path(root) / block.lstrip("/") / "holders").mkdir(parents=True)
    (Path(root) / block.lstrip("/") / "slaves").mkdir(parents=True)
    _link(root, block + "/device", sdev)
    _queue(root, block, scheduler, rotational)
    _link(root, "/sys/block/" + name, block)
    _link(root, "/sys/class/block/" + name, block)
    if udev is not None:
        udev_db(root, dev, udev)
    return block


def multipath_map(root, index, dm_name, wwid, paths, scheduler="[none] mq-deadline kyber bfq", udev=True):
    """dm-<index>, a multipath map over the SCSI disks ``paths``."""
    name = "dm-%d" % index
    block = "/sys/devices/virtual/block/" + name
    dev = "253:%d" % index
    _w(root, block + "/dev", dev)
    _w(root, block + "/size", "209715200")
    _w(root, block + "/uevent", "MAJOR=253\nMINOR=%d\nDEVNAME=%s\nDEVTYPE=disk" % (index, name))
    _w(root, block + "/dm/name", dm_name)
    _w(root, block + "/dm/uuid", "mpath-" + wwid)
    (Path(root) / block.lstrip("/") / "holders").mkdir(parents=True)
    _queue(root, block, scheduler, 1)
    for p in paths:
        real = os.path.realpath(str(Path(root) / "sys/block" / p))
        rel = "/" + os.path.relpath(real, str(root))
        _link(root, "%s/slaves/%s" % (block, p), rel)
        _link(root, "%s/holders/%s" % (rel, name), block)
    _link(root, "/sys/block/" + name, block)
    _link(root, "/sys/class/block/" + name, block)
    if udev:
        udev_db(root, dev, {"DM_NAME": dm_name, "DM_UUID": "mpath-" + wwid})
    return block


def udev_db(root, dev, props):
    lines = ["S:disk/by-id/numatune-fixture-%s" % dev.replace(":", "-"), "I:123456"]
    lines += ["E:%s=%s" % kv for kv in sorted(props.items())]
    lines.append("G:systemd")
    _w(root, "/run/udev/data/b" + dev, "\n".join(lines))


def disk_name(index):
    """sd names as the kernel gives them: 0 -> sda, 25 -> sdz, 26 -> sdaa."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("a") + rest) + name
    return "sd" + name


def san_host(root, luns=2, paths=2, multipath_conf=None):
    """A boot disk sda (local RAID) and ``luns`` 3PAR LUNs over ``paths`` paths each."""
    scsi_disk(root, "sda", 0, host=0, vendor="DELL", model="PERC H730", pci="0000:00:1f.2", numa_node=0,
              scheduler=BLK_MQ, rotational=1, udev={"ID_VENDOR": "DELL", "ID_MODEL": "PERC_H730",
                                                     "ID_SERIAL": "36c81f660ab5d00001", "ID_TYPE": "disk"})
    k = 0
    for lun in range(luns):
        wwid = "360002ac0000000000000%03d00019f0f" % lun
        members = []
        for path in range(paths):
            name = disk_name(k + 1)
            scsi_disk(root, name, 16 * (k + 1), host=3 + path, lun=lun % 256, target=lun // 256,
                      wwid="naa." + wwid[1:],
                      pci="0000:8%d:00.0" % path, numa_node=2, udev={
                          "ID_VENDOR": "3PARdata", "ID_MODEL": "VV", "ID_SERIAL": wwid,
                          "ID_WWN_WITH_EXTENSION": "0x" + wwid[1:], "ID_WWN": "0x" + wwid[1:17],
                          "DM_MULTIPATH_DEVICE_PATH": "1"})
            members.append(name)
            k += 1
        multipath_map(root, lun, "ora_data%d" % lun, wwid, members)
    if multipath_conf is not None:
        _w(root, "/etc/multipath.conf", multipath_conf)
    _w(root, "/proc/sys/kernel/osrelease", "5.14.0-362.el9.x86_64")
    return root


# A stand-in multipathd for a copy that says it is live (conftest.LiveCopy):
# what the real one does that numatune relies on, on the copy's files.
# "reconfigure" reads the copy's multipath.conf into its running state (kept
# outside the tree, in $NUMATUNE_TEST_MPD) and, as the kernel does on the
# table reload, puts every map's read_ahead_kb and max_sectors_kb back to
# the defaults; "show config" prints a built-in 3PAR entry, then the running
# file; "show daemon" says idle. Every call is logged.
MULTIPATHD = r'''#!%(python)s
import glob, os, sys
state = os.environ["NUMATUNE_TEST_MPD"]
root = os.environ["NUMATUNE_TEST_ROOT"]
args = " ".join(sys.argv[1:])
with open(state + "/calls", "a") as f:
    f.write(args + "\n")
if os.path.exists(state + "/stopped"):
    sys.stderr.write("can't connect to socket\n")
    sys.exit(1)
if args == "show daemon":
    print("pid 4242 idle")
elif args == "show config":
    print('devices {\n\tdevice {\n\t\tvendor "3PARdata"\n\t\tproduct "VV"\n\t\tno_path_retry 18\n\t}\n}')
    if os.path.exists(state + "/running"):
        print(open(state + "/running").read())
elif args == "reconfigure":
    conf = root + "/etc/multipath.conf"
    with open(state + "/running", "w") as f:
        f.write(open(conf).read() if os.path.exists(conf) else "")
    for dev in glob.glob(root + "/sys/block/dm-*/queue"):
        for name, value in (("read_ahead_kb", "128"), ("max_sectors_kb", "512")):
            with open(dev + "/" + name, "w") as f:
                f.write(value + "\n")
    print("ok")
else:
    sys.exit(1)
'''


def stand_in_multipathd(root, state_dir, setenv):
    """Install the stand-in as the copy's /usr/sbin/multipathd, its running
    configuration the copy's multipath.conf as it is now. ``setenv`` is
    monkeypatch.setenv. Returns ``calls()``: the commands it was given."""
    import sys
    state_dir = Path(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    conf = Path(root) / "etc/multipath.conf"
    (state_dir / "running").write_text(conf.read_text() if conf.exists() else "")
    path = Path(root) / "usr/sbin/multipathd"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MULTIPATHD % {"python": sys.executable})
    path.chmod(0o755)
    setenv("NUMATUNE_TEST_MPD", str(state_dir))
    setenv("NUMATUNE_TEST_ROOT", str(root))

    def calls():
        log = state_dir / "calls"
        return log.read_text().splitlines() if log.exists() else []
    return calls
