"""Block devices: what each one is (identity, for matching) and the queue
settings a policy asks about.

Two ways to find them, with the same result on the same machine: pyudev on
the live root (libudev gives the udev properties: ID_VENDOR, ID_SERIAL,
ID_WWN, DM_UUID...), and plain sysfs under a ``--root`` copy, with the udev
database files ``/run/udev/data/b<major>:<minor>`` a snapshot carries.
Both read attributes from sysfs; only enumeration and properties differ.
Parsing is pure and lives beside the readers.
"""
import os

from numatune.families.storage.props import (PROPERTY_KEYS, PROPERTY_PREFIXES, keep_properties,  # noqa: F401
                                             kept_udev_db, kept_uevent, parse_udev_db)

UDEV_DB = "/run/udev/data"
# Kinds by kernel name; "disk" is everything else (sd, vd, xvd, hd).
NAME_KINDS = (("loop*", "loop"), ("nvme*", "nvme"), ("md*", "md"), ("sr*", "rom"),
              ("ram*", "ram"), ("zram*", "zram"), ("nbd*", "nbd"))
KINDS = ("disk", "dm-multipath", "dm", "nvme", "loop", "md", "rom", "ram", "zram", "nbd")
QUEUE_ATTRS = ("scheduler", "nr_requests", "max_sectors_kb", "max_hw_sectors_kb", "rotational", "nomerges",
               "read_ahead_kb", "rq_affinity")


def parse_scheduler(text):
    """"noop deadline [cfq]" -> ("cfq", ["noop", "deadline", "cfq"]).

    A file without brackets names the one scheduler there is ("none" on an
    old nvme, or what a copied tree holds after a write)."""
    words = (text or "").replace("\x00", "").split()
    if not words:
        return None, []
    current = None
    for w in words:
        if w.startswith("[") and w.endswith("]"):
            current = w[1:-1]
    names = [w.strip("[]") for w in words]
    if current is None:
        if len(names) == 1:
            return names[0], names
        return None, names
    return current, names


_SCHEDULERS = {}


def _scheduler(text):
    """parse_scheduler's answer as the record's field, each queue/scheduler text
    parsed once: a giant host's 5,000 queues show a few texts. The list is the
    record's own."""
    got = _SCHEDULERS.get(text)
    if got is None:
        got = parse_scheduler(text)
        if len(_SCHEDULERS) < 256:  # a few texts a host; never a store of every text seen
            _SCHEDULERS[text] = got
    return {"current": got[0], "available": list(got[1])}


# NAME_KINDS' patterns are all "prefix*" (tests/test_block_index.py holds them to it):
# a prefix test each, not a glob, on 5,000 devices.
_NAME_PREFIXES = tuple((p[:-1], k) for p, k in NAME_KINDS)


def classify(name, dm_uuid):
    if name.startswith("dm-"):
        return "dm-multipath" if (dm_uuid or "").startswith("mpath-") else "dm"
    for prefix, kind in _NAME_PREFIXES:
        if name.startswith(prefix):
            return kind
    return "disk"


def normalize_wwn(value):
    """"naa.60002ac0..." / "0x60002ac0..." / "360002ac0..." compare equal."""
    v = (value or "").strip().lower()
    for prefix in ("naa.", "eui.", "t10.", "0x"):
        if v.startswith(prefix):
            return v[len(prefix):]
    return v


def _clean(text):
    if text is None:
        return None
    text = text.replace("\x00", "").strip()
    return text or None


def _int(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _numa_node(root, real_sys_path, cache, known=None):
    """NUMA node of the nearest ancestor (the HBA's PCI function) that says.
    ``cache`` maps directories to answers: thousands of LUNs share few HBAs.
    ``known``: (directory, the text of its numa_node) already read."""
    path, seen = real_sys_path, []
    node = None
    while path.startswith("/sys/devices/") and path.count("/") > 3:
        # os.path.dirname, for a normalized path with parents to spare: no trailing or doubled "/".
        path = path[:path.rindex("/")]
        if path in cache:
            node = cache[path]
            break
        seen.append(path)
        if path.endswith("/block"):
            # The block class's glue directory between a disk and its parent
            # device: a kobject with no attributes, never a device of its own.
            continue
        node = _int(_clean(known[1] if known and known[0] == path else root.read_text(path + "/numa_node")))
        if node is not None:
            node = node if node >= 0 else None
            break
    for p in seen:
        cache[p] = node
    return node


def _real(root, path):
    """Where a /sys/block link points. sysfs links are relative and their
    targets are real directories, so one readlink does what realpath does."""
    target = root.readlink(path)
    if target is None:
        return path
    return os.path.normpath(os.path.join(os.path.dirname(path), target))


DEV_BLOCK = "/sys/dev/block"


def _normjoin(base, link):
    """os.path.normpath(os.path.join(base, link)) with join's rules written
    out: two links a device (10,000 on a giant host), and join's generic
    path cost as much as the normalizing."""
    if not link.startswith("/"):
        link = base + link if not base or base.endswith("/") else base + "/" + link
    return os.path.normpath(link)


def block_index(root):
    """{name: (major:minor, real sysfs path, is a partition)} of every block
    device, from one listing of /sys/dev/block and one readlink per entry:
    what the device number, the sysfs path and partition-or-not would
    otherwise cost a file read, a readlink and a stat per device. {} where
    the root has no /sys/dev/block (snapshots carry only /sys/block)."""
    found = {}
    for dev in root.listdir(DEV_BLOCK):
        target = root.readlink("%s/%s" % (DEV_BLOCK, dev))
        if target is not None:
            real = _normjoin(DEV_BLOCK, target)
            found[real.rpartition("/")[2]] = (dev, real)
    # A partition lives in its disk's directory (sda/sda1, nvme0n1/nvme0n1p1); the path is
    # absolute and normalized, so its last two parts are those of os.path.dirname/basename.
    return {name: (dev, real, real.rsplit("/", 2)[-2] in found) for name, (dev, real) in found.items()}


def device_names(root, index=None):
    """Whole block devices (no partitions) and where their sysfs entry is.

    Old kernels and some captures list nvme only under /sys/class/block.
    ``index`` (block_index) answers "partition?" without a stat per device."""
    found = {}
    for directory in ("/sys/block", "/sys/class/block"):
        for name in root.listdir(directory):
            if name in found:
                continue
            path = "%s/%s" % (directory, name)
            known = index.get(name) if index else None
            if known[2] if known else root.exists(path + "/partition"):
                continue
            found[name] = path
    return found


_VIRTUAL = "/sys/devices/virtual/"
# What no selector, setting or rule file asks of a device, only `numatune facts` (and
# recommend) shows: a plan's read leaves them out (their files are a quarter of a SCSI
# path's: its size, holders/, its SCSI device's numa_node and the NUMA walk from it).
ONLY_SHOWN = ("size", "holders", "numa_node")
# What the identity reads of a device's queue/ and device/ directories.
_QUEUE_NAMES = ("scheduler", "rotational")
_SCSI_NAMES = ("vendor", "model", "wwid", "numa_node")


def _identity(root, name, path, props, numa_cache, known=None, dev=None, extra=None, size=False, kept=False,
              whole=True):
    """Everything a selector may look at, read from sysfs under ``root``.
    ``known``: the device's block_index entry, when the root has one.
    ``extra``: see discover_sysfs. ``size``: the text of its ``size`` file
    when read already (False: not yet). ``kept``: ``props`` holds only the
    properties keep_properties keeps (then it becomes the record's own).
    ``whole``: with what only `numatune facts` shows (see discover_sysfs)."""
    real = known[1] if known else _real(root, path)
    if known:
        dev = known[0]
    elif dev is None:
        dev = _clean(root.read_text(path + "/dev"))
    dm_name = dm_uuid = None
    # Files of one directory are read together (Root.read_texts: the directory resolved once).
    if name.startswith("dm-"):
        dm = root.read_texts(path + "/dm", ("name", "uuid"))
        dm_name, dm_uuid = _clean(dm["name"]), _clean(dm["uuid"])
    vendor = model = wwid = None
    # A missing device/ reads as three missing files: cheaper than a stat first on the
    # thousands of SCSI paths that have one (a device-mapper map never does).
    queue_names, scsi_names, read = extra if extra is not None else (_QUEUE_NAMES, _SCSI_NAMES, None)
    if not whole:
        scsi_names = tuple(n for n in scsi_names if n != "numa_node")
    scsi = parent = None
    # A device under /sys/devices/virtual has no parent device, so no device/ link: the
    # kernel links one only to a parent (1,024 maps on a giant host, each a stat that fails).
    if not name.startswith("dm-") or (not real.startswith(_VIRTUAL) and root.exists(path + "/device")):
        # numa_node too: the parent device is the first directory the NUMA walk
        # asks, and this read finds it open already.
        scsi = root.read_texts(path + "/device", scsi_names)
        vendor, model, wwid = _clean(scsi["vendor"]), _clean(scsi["model"]), _clean(scsi["wwid"])
        link = root.readlink(path + "/device") if known and whole else None
        if link is not None:
            parent = (_normjoin(real, link), scsi["numa_node"])
    sectors = _int(_clean(root.read_text(path + "/size") if size is False else size)) if whole else None
    queue = root.read_texts(path + "/queue", queue_names)
    if read is not None:
        read[name] = {"queue": queue, "device": scsi}
    kind = classify(name, dm_uuid)
    rotational_text = _clean(queue["rotational"])
    rotational = _int(rotational_text)
    udev = props if kept else keep_properties(props)
    # A capture without uevent files: every /sys/block entry (partitions are
    # left out above) is a whole disk, which is what the rules' DEVTYPE says.
    assumed = "DEVTYPE" not in udev
    if assumed:
        udev["DEVTYPE"] = "disk"
    record = {
        "name": name,
        "kind": kind,
        "dev": dev,
        "sysfs": path,
        "size": sectors * 512 if sectors is not None else None,
        "vendor": vendor or props.get("ID_VENDOR"),
        "model": model or props.get("ID_MODEL"),
        "wwn": props.get("ID_WWN_WITH_EXTENSION") or props.get("ID_WWN") or wwid,
        "dm_name": dm_name or props.get("DM_NAME"),
        "dm_uuid": dm_uuid or props.get("DM_UUID"),
        "rotational": rotational,
        "scheduler": _scheduler(queue["scheduler"]),
        "slaves": root.listdir(path + "/slaves"),
        "holders": root.listdir(path + "/holders") if whole else None,
        "numa_node": _numa_node(root, real, numa_cache, parent) if whole else None,
        "udev": udev,
        "devtype_assumed": assumed,
        # What a udev rule's ATTR{}/ATTRS{} sees: the device's own values,
        # never the ones a multipath map inherits below.
        "attrs": {"vendor": vendor, "model": model, "queue/rotational": rotational_text},
    }
    if not whole:
        for key in ONLY_SHOWN:
            del record[key]
    return record


def _properties(root, path, dev, database=None, whole=True):
    """What libudev would report of the properties keep_properties keeps: the
    kernel's uevent plus the udev database; and the text of the device's
    ``size``, read with its uevent (one directory lookup for both, on 5,000
    devices). ``database``: the database files read already, by name."""
    own = root.read_texts(path, ("uevent", "size") if whole else ("uevent",))
    props = kept_uevent(own["uevent"])
    if dev:
        entry = "b" + dev
        text = database[entry] if database and entry in database else root.read_text("%s/%s" % (UDEV_DB, entry))
        if text:
            props.update(kept_udev_db(text))
    return props, own.get("size")


def _extra(attrs, read):
    """_identity's ``extra``: the queue and SCSI attributes to read with the
    identity (its own, and those of ``attrs``: from the same two directories),
    and the dict to keep them in, for read_settings."""
    if read is None:
        return None
    return (_QUEUE_NAMES + tuple(a for a in attrs if a in QUEUE_ATTRS and a not in _QUEUE_NAMES),
            _SCSI_NAMES + (("queue_depth",) if "queue_depth" in attrs else ()), read)


def discover_sysfs(root, attrs=(), read=None, whole=True):
    """Devices from sysfs and the udev database files under ``root``: the
    block index first, then each device's own attributes. ``attrs``: the
    settings a policy asks about, read along (each device's queue directory
    opened once, not again for read_settings) into ``read`` ({name: texts}).
    ``whole``: with ONLY_SHOWN (False: the records a plan's diff reads)."""
    devices, cache = {}, {}
    index = block_index(root)
    extra = _extra(attrs, read)
    names = device_names(root, index)
    # The udev database files of the devices the index numbers, read in one go: one
    # directory, looked up once, not once per file (5,000 on a giant host).
    database = root.read_texts(UDEV_DB, ["b" + index[n][0] for n in names if n in index]) if index else None
    for name, path in names.items():
        known = index.get(name)
        dev = known[0] if known else _clean(root.read_text(path + "/dev"))
        props, size = _properties(root, path, dev, database, whole)
        devices[name] = _identity(root, name, path, props, cache, known, dev, extra, size, kept=True, whole=whole)
    return _inherit(devices)


def discover_udev(root, attrs=(), read=None, whole=True):
    """Devices as libudev sees them (live root only)."""
    import pyudev  # lazily: the core imports no optional library
    context = pyudev.Context()
    devices, cache = {}, {}
    index = block_index(root)
    paths = device_names(root, index)
    extra = _extra(attrs, read)
    for device in context.list_devices(subsystem="block", DEVTYPE="disk"):
        name = device.sys_name
        path = paths.get(name, "/sys/block/" + name)
        devices[name] = _identity(root, name, path, dict(device.properties), cache, index.get(name), extra=extra,
                                  whole=whole)
    return _inherit(devices)


def _inherit(devices):
    """A multipath map has no SCSI inquiry data of its own: it answers to
    its paths' vendor, model and NUMA node, as users expect of a LUN."""
    for dev in devices.values():
        if dev["kind"] != "dm-multipath":
            continue
        for slave in dev["slaves"]:
            path = devices.get(slave)
            if path is None:
                continue
            for key in ("vendor", "model", "wwn", "numa_node"):
                if dev.get(key, False) is None:     # numa_node: not in a plan's records
                    dev[key] = path[key]
    return devices


def discover(root, prefer_udev=True, attrs=(), read=None, whole=True):
    """(source, devices): pyudev on the live root when it is installed.
    ``attrs``, ``read``, ``whole``: see discover_sysfs."""
    if root.is_live and prefer_udev:
        try:
            return "udev", discover_udev(root, attrs, read, whole)
        except ImportError:
            pass
    return "sysfs", discover_sysfs(root, attrs, read, whole)
