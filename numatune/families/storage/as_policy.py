"""The storage part of `numatune facts --format policy`: the block devices'
queue and SCSI settings as ``[[block]]`` rules, one per setting and group of
devices, never one per device: devices are grouped by array, as a DBA's rule
selects them (vendor and model: the 4,096 paths of one array and its
multipath maps are one group; the kind where a device names neither), and
the group's most common value is its rule. After it, a rule for the maps or
the paths where their own value differs, then one naming the devices that
differ still (later rules win; a rule on a map also sets its paths). Left
out: loop, ram, zram, rom and nbd devices, a scheduler where
the device offers no choice, rotational (a rule matching on it could not set
it), cache_type (it needs the admin's acknowledgement of a data-loss risk)
and multipath.conf's keys. What the next boot would not keep (no numatune
udev rule or tuned profile sets it) the plan of `facts --format policy`
leaves out."""
from numatune.families.storage.settings import SCHEDULERS

KINDS = ("dm-multipath", "disk", "nvme", "md", "dm")
ATTRS = ("scheduler", "nr_requests", "max_sectors_kb", "read_ahead_kb", "nomerges", "rq_affinity", "queue_depth")
# The schema's bounds (knob.POLICY): a value outside them is not said.
BOUNDS = {"nr_requests": (4, 1 << 20), "max_sectors_kb": (4, 1 << 31), "read_ahead_kb": (0, 1 << 31),
          "nomerges": (0, 2), "rq_affinity": (0, 2), "queue_depth": (1, 65535)}
# Read these too, on every device (the survey reads the others).
MORE = {"block": [{"match": {"name": "*"}, "read_ahead_kb": 128, "max_sectors_kb": 512, "rq_affinity": 1}]}


def _value(dev, attr):
    if attr == "scheduler":
        sched = dev.get("scheduler") or {}
        current = sched.get("current")
        offered = set(sched.get("available") or [])
        return current if current in SCHEDULERS and offered - {current} else None
    text = ((dev.get("settings") or {}).get(attr) or {}).get("value")
    if text is None or not str(text).strip().isdigit():
        return None
    low, high = BOUNDS[attr]
    value = int(text)
    return value if low <= value <= high else None


def _array(dev):
    """The match of the device's array: vendor and model (its maps carry them
    too), or its kind where the device names neither."""
    out = {f: dev[f] for f in ("vendor", "model")
           if (dev.get(f) or "").strip() and '"' not in dev[f] and "\\" not in dev[f]}
    return out or {"kind": dev["kind"]}


def _common(values):
    """The value most devices have (ties: the one that sorts first, for a stable text)."""
    return sorted(values, key=lambda v: (-len(values[v]), str(v)))[0]


def _rules(devices, attr):
    """The rules that give each device its value of ``attr``: one per array,
    then one per kind within it (its maps, its paths) where that kind's value
    differs, then the devices that differ still, by name."""
    arrays = {}
    for name in sorted(devices):
        value = _value(devices[name], attr)
        if value is not None:
            arrays.setdefault(tuple(sorted(_array(devices[name]).items())), {})[name] = value
    out = []
    for key in sorted(arrays):
        got = arrays[key]
        match = dict(key)
        first = _common(_by_value(got))
        out.append({"match": match, attr: first})
        odd = {}
        for kind in sorted({devices[n]["kind"] for n in got}):
            mine = {n: v for n, v in got.items() if devices[n]["kind"] == kind}
            value = _common(_by_value(mine))
            if value != first and "kind" not in match:
                out.append({"match": dict(match, kind=kind), attr: value})
            else:
                value = first
            odd.update({n: v for n, v in mine.items() if v != value})
        out += [{"match": {"name": names}, attr: v} for v, names in sorted(_by_value(odd).items(), key=str)]
    return out


def _by_value(values):
    out = {}
    for name, value in values.items():
        out.setdefault(value, []).append(name)
    return out


def as_policy(facts):
    """({"block": [...]}, what else to read of every device)."""
    devices = {n: d for n, d in ((facts.get("storage") or {}).get("devices") or {}).items()
               if d.get("kind") in KINDS}
    rules = [r for attr in ATTRS for r in _rules(devices, attr)]
    return ({"block": rules} if rules else {}), MORE
