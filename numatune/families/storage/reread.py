"""The storage facts after apply's writes, from the plan's (verify).

A giant host's storage facts are mostly who each device is: its udev
properties, SCSI inquiry, size, slaves and NUMA node, 5,000 devices read
whole. No write numatune makes changes them: the writes set queue
attributes, a SCSI device's queue_depth and cache_type, and files (udev
rules, multipath.conf) that no tool is made to read on a copy. So after
such writes only each device's queue (its scheduler and rotational, part
of the identity; the settings) and numatune's files are read again, and
the rest is the plan's. Anything else (a host tool run: multipathd
reconfigure reloads the maps, tuned-adm; a write elsewhere in a device's
directory; a device come or gone) reads the facts whole.
"""
from numatune.families.storage import facts as facts_block, knob

# The files under a block device a write may set and still leave it the same device.
SETTINGS = frozenset(facts_block.QUEUE_ATTRS + ("queue_depth", "cache_type"))


def reread(root, data, planned, ops):
    """knob.read(root, data) after ``ops``, or None when they may have changed more than the queues."""
    devices = planned.get("devices")
    if not data.get("block") or not devices or not all(_keeps_identity(op) for op in ops):
        return None
    if not _same_devices(root, devices):
        return None
    asked = knob.asked(data)
    more = tuple(a for a in asked if a in facts_block.QUEUE_ATTRS and a not in ("scheduler", "rotational"))
    scsi = ("queue_depth",) if "queue_depth" in asked else ()
    fresh, read_along = {}, {}
    for name, dev in devices.items():
        fresh[name], read_along[name] = _queue(root, dev, more, scsi)
    return knob.with_settings(root, data, planned["source"], fresh, read_along)


def _keeps_identity(op):
    if op.get("argv"):
        return False    # a host tool ran (multipathd reconfigure, tuned-adm, grubby)
    for path in [op.get("path") or ""] + list(op.get("coupled") or ()):
        name = path.rsplit("/", 1)[-1]
        if path.startswith("/run/udev/") or name == "numa_node":
            return False
        if path.startswith("/sys/") and "/block/" in path and name not in SETTINGS:
            return False
    return True


def _same_devices(root, devices):
    """The plan's devices are the ones /sys/block lists now (one listing)."""
    listed = root.listdir("/sys/block")
    return len(listed) == len(devices) and all(devices.get(n, {}).get("sysfs") == "/sys/block/" + n for n in listed)


def _queue(root, dev, more, scsi):
    """``dev`` with its queue's scheduler and rotational read again (as
    facts._identity reads them), the settings left for with_settings, and
    the texts read along for it (``more``: the settings' files in the queue,
    ``scsi``: in its device directory)."""
    # The device's directory first, as discovery opens it: its queue and device
    # directories are then opened from it by name, not each resolved from the root.
    root.read_texts(dev["sysfs"], ())
    queue = root.read_texts(dev["sysfs"] + "/queue", ("scheduler", "rotational") + more)
    along = {"queue": queue}
    if scsi:
        # A map has no device directory: its files read as missing, as read_settings finds them.
        along["device"] = root.read_texts(dev["sysfs"] + "/device", scsi)
    current, available = facts_block.parse_scheduler(queue["scheduler"])
    text = facts_block._clean(queue["rotational"])
    out = {k: v for k, v in dev.items() if k != "settings"}
    out["scheduler"] = {"current": current, "available": available}
    out["rotational"] = facts_block._int(text)
    out["attrs"] = dict(dev["attrs"], **{"queue/rotational": text})
    return out, along
