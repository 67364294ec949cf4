"""The current values of a block device's settings (its queue files, its
SCSI device's queue_depth and cache_type), from what discovery read along
with its identity where it did."""
from numatune.families.storage.facts import QUEUE_ATTRS, _clean

# How read_settings reads each attribute it is asked about.
_QUEUE, _ROTATIONAL, _DEPTH, _CACHE = "queue", "rotational", "queue_depth", "cache_type"
_STEPS = {}


def _steps(attrs, known):
    """(the queue files to read, [(attr, how)]) of read_settings for ``attrs``,
    worked out once per list of attributes: most devices are asked the same."""
    key = (tuple(attrs), known)
    got = _STEPS.get(key)
    if got is None:
        queue, order = [], []
        for attr in attrs:
            if attr == "scheduler":
                continue  # part of the identity
            if attr in QUEUE_ATTRS:
                # rotational was read with the identity a moment ago.
                how = _ROTATIONAL if known and attr == "rotational" else _QUEUE
                if how is _QUEUE:
                    queue.append(attr)
                order.append((attr, how))
            elif attr in (_DEPTH, _CACHE):
                order.append((attr, attr))
        got = (queue, order)
        if len(_STEPS) < 256:   # a policy asks a few lists: never a store of every one
            _STEPS[key] = got
    return got


def read_settings(root, device, attrs, read=None):
    """Current values of ``attrs`` (queue names, "queue_depth", "cache_type").
    ``read``: the texts discover read along for this device, if it did."""
    out = {}
    path = device["sysfs"]
    wanted, order = _steps(attrs, "attrs" in device)
    read = read or {}
    # The queue attributes in one go.
    queue = read.get("queue") or {}
    missing = [a for a in wanted if a not in queue]
    if missing:
        queue = dict(queue, **root.read_texts(path + "/queue", missing))
    in_queue = path + "/queue/"
    for attr, how in order:
        if how is _QUEUE:
            text = queue[attr]  # _clean's, inline: 35,000 settings on a giant host
            if text is not None:
                text = text.replace("\x00", "").strip() or None
            out[attr] = {"path": in_queue + attr, "value": text}
        elif how is _ROTATIONAL:
            out[attr] = {"path": in_queue + attr, "value": device["attrs"]["queue/rotational"]}
        elif how is _DEPTH:
            # The identity found no device/ directory (a device-mapper map): no SCSI attribute to read.
            scsi = read.get("device")
            text = scsi["queue_depth"] if scsi and "queue_depth" in scsi else \
                None if "device" in read and scsi is None else root.read_text(path + "/device/queue_depth")
            out[attr] = {"path": path + "/device/queue_depth", "value": _clean(text)}
        else:
            found = root.listdir(path + "/device/scsi_disk")
            where = "%s/device/scsi_disk/%s/cache_type" % (path, found[0]) if found else None
            value = _clean(root.read_text(where)) if where else None
            if value and value.startswith("temporary "):
                value = value[len("temporary "):]  # a copied tree keeps what was written
            out[attr] = {"path": where, "value": value}
    return out
