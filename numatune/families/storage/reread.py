"""The storage facts after apply's writes (verify): only the devices written read again.

No write numatune makes changes who a device is (its udev properties, SCSI
inquiry, size, slaves, NUMA node: 5,000 devices read whole on a giant host),
so that is kept from the plan. Reading every device's queue again cost most
of verify's 0.3 s for storage (5,120 queue directories, though no write set
each scheduler or max_hw_sectors_kb). So a device no write touched keeps its
facts as planned, and a device written reads again all its queue settings
the policy asks but two (from
the texts verify read back, apply/recent.py: the kernel may change some
with others, an elevator switch resets nr_requests, and newer kernels may
move read_ahead_kb with a queue limit): its scheduler only when written (no
other write changes it), its max_hw_sectors_kb never (a hardware limit).
Its queue_depth is read when written; cache_type (rare) wherever asked.
Whatever else a write could have touched reads the facts whole (a host tool
run, a write elsewhere under a device or under /etc/udev, a device come or
gone: see _written).
"""
from numatune.families.storage import facts as facts_block, knob, udev_rules

# A device's settings no write but their own changes.
FIXED = ("scheduler", "max_hw_sectors_kb")


def reread(root, data, planned, ops):
    """knob.read(root, data) after ``ops``, or None when they may have changed more than what they wrote."""
    devices = planned.get("devices")
    if not data.get("block") or not devices:
        return None
    written = _written(ops, {dev["sysfs"]: name for name, dev in devices.items()})
    if written is None or not _same_devices(root, devices):
        return None
    asked = knob.asked(data)
    settable = tuple(a for a in asked if a in facts_block.QUEUE_ATTRS and a not in FIXED and a != "rotational")
    fresh, read_along, names = {}, {}, {}
    for name, dev in devices.items():
        fresh[name], read_along[name] = _again(root, dev, written.get(name), settable, names)
    return knob.with_settings(root, data, planned["source"], fresh, read_along)


def _written(ops, by_sysfs):
    """{device: ({queue file names}, {device file names})} of the settings
    ``ops`` wrote (their coupled files too), or None for an op that may have
    changed more: a host tool run (multipathd reconfigure, tuned-adm), a
    write to a udev database or NUMA node file, under /etc/udev but
    numatune's rules (udev reads those, not us), or under a block device in
    /sys that is not a setting of one the plan knows by that path."""
    out = {}
    # One pass over each of a giant host's 35,000 writes, its path alone first.
    for op in ops:
        if op.get("argv"):
            return None
        path, coupled = op.get("path"), op.get("coupled")
        for p in [path] + list(coupled) if coupled else (path,):
            if p and not _place(p, by_sysfs, out):
                return None
    return out


def _place(path, by_sysfs, out, rules=udev_rules.PATH):
    """Add ``path`` to ``out`` where it is a device's setting; False where it may change more."""
    directory, _, name = path.rpartition("/")
    if name == "numa_node" or path.startswith("/run/udev/"):
        return False
    if path.startswith("/etc/udev/"):
        return path == rules
    if not path.startswith("/sys/"):
        return True     # another file (a sysctl, numatune's own): read again as before
    device = where = None
    if name in facts_block.QUEUE_ATTRS and directory.endswith("/queue"):
        device, where = by_sysfs.get(directory[:-6]), 0
    elif name == "queue_depth" and directory.endswith("/device"):
        device, where = by_sysfs.get(directory[:-7]), 1
    elif name == "cache_type":
        # DEVICE/device/scsi_disk/H:C:T:L/cache_type
        parts = directory.rsplit("/", 3)
        if len(parts) == 4 and parts[1:3] == ["device", "scsi_disk"]:
            device, where = by_sysfs.get(parts[0]), 1
    if device is None:
        # A device's file but no setting, or one by another path (/sys/devices/...): not as the plan knows it.
        return "/block/" not in path
    got = out.get(device)
    if got is None:
        got = out[device] = (set(), set())
    got[where].add(name)
    return True


def _again(root, dev, written, settable, names_of):
    """(the record of ``dev`` without its settings, the texts of its settings
    for knob.with_settings): read again where ``written`` (queue and device
    file names, None: nothing) says, the plan's elsewhere. ``names_of``: the
    queue files to read for each set of queue files written, kept across devices."""
    planned = dev.get("settings") or {}
    out = {k: v for k, v in dev.items() if k != "settings"}
    # The plan's values are clean texts (facts._clean is idempotent): read_settings takes them as read.
    queue = {a: s["value"] for a, s in planned.items() if a in facts_block.QUEUE_ATTRS}
    device = {"queue_depth": planned["queue_depth"]["value"]} if "queue_depth" in planned else {}
    if written:
        key = frozenset(written[0])
        names = names_of.get(key)
        if names is None:
            # Those written, and those the kernel may change with them; the scheduler only when written.
            names = names_of[key] = tuple(sorted(key.union(settable, ("rotational",))))
        got = root.read_texts(dev["sysfs"] + "/queue", names)
        queue.update((a, t) for a, t in got.items() if a != "scheduler")
        if "scheduler" in got:
            current, available = facts_block.parse_scheduler(got["scheduler"])
            out["scheduler"] = {"current": current, "available": available}
        text = facts_block._clean(got["rotational"])
        out["rotational"] = facts_block._int(text)
        out["attrs"] = dict(dev["attrs"], **{"queue/rotational": text})
        if "queue_depth" in written[1]:
            device["queue_depth"] = root.read_text(dev["sysfs"] + "/device/queue_depth")
        # cache_type is not among the texts: read_settings reads it again wherever it is asked.
    return out, {"queue": queue, "device": device}


def _same_devices(root, devices):
    """The plan's devices are the ones /sys/block lists now (one listing)."""
    listed = root.listdir("/sys/block")
    return len(listed) == len(devices) and all(devices.get(n, {}).get("sysfs") == "/sys/block/" + n for n in listed)
