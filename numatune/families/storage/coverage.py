"""Which assigned settings a list of udev rules would not keep after a reboot
or hot-add. One plan asks twice (the rules on file, to call a rule compliant,
and the wanted ones, for the live-only findings): what each device must be
given depends on the devices, the assignments and the routed settings, not on
the rules, so it is worked out once per plan (5,000 devices x 8 settings on a
giant host), and a rule list asked about again (the file often holds the
wanted rules) is answered from the first time."""
from numatune.families.storage import udev_targets
from numatune.families.storage.settings import SCHEDULER_NAMES

# cache_type lives on the scsi_disk device and is not persisted: no udev key.
UDEV_ATTRS = {"scheduler": "queue/scheduler", "nr_requests": "queue/nr_requests",
              "max_sectors_kb": "queue/max_sectors_kb", "read_ahead_kb": "queue/read_ahead_kb",
              "rotational": "queue/rotational", "nomerges": "queue/nomerges", "rq_affinity": "queue/rq_affinity",
              "queue_depth": "device/queue_depth"}
SCSI_ONLY = ("queue_depth",)
# The udev key of each: formatted once, not per device and attribute (40,000 on a giant host).
_ATTR_KEYS = {attr: "ATTR{%s}" % path for attr, path in UDEV_ATTRS.items()}


def _wanted(devices, assigned, routed):
    """[(device, [(attr, udev key, value)])]: what a rule must give each
    device for its assigned settings to persist, in assigned's order. Devices
    with the same settings, kind and schedulers (most of a giant host's paths)
    share one list, worked out once."""
    out, seen = [], {}
    for name, attrs in assigned.items():
        dev = devices[name]
        sched = dev["scheduler"]
        offered = sched["available"] or ()
        # The settings' dict by its id: devices the same rules set share one (knob._select),
        # and ``assigned`` holds each for this call, so no other takes its id.
        alike = (id(attrs), dev["kind"], tuple(offered), sched["current"])
        wants = seen.get(alike)
        if wants is None:
            wants = seen[alike] = _wants(attrs, dev["kind"], offered, sched["current"], routed)
        if wants:
            out.append((name, wants))
    return out


def _wants(attrs, kind, offered, current, routed):
    wants = []
    for attr, (value, index) in attrs.items():
        key = _ATTR_KEYS.get(attr)
        if key is None or (index, attr) in routed:
            continue
        if attr in SCSI_ONLY and kind == "dm-multipath":
            continue
        want = value
        if attr == "scheduler":
            want = next((n for n in SCHEDULER_NAMES[value] if n in offered or n == current), None)
            if want is None:
                continue  # not offered: the live diff says so
        wants.append((attr, key, want))
    return wants


class Coverage:
    """One plan's coverage questions: ``missing(rules)`` per rule list. Held by
    the diff that asks, never across plans (it keeps the plan's facts)."""

    def __init__(self, facts, assigned, routed=()):
        self._devices = facts["devices"]
        self._assigned = assigned
        self._routed = routed
        self._wants = None
        self._answers = []      # [(rules, missing)]: two at most per plan

    def missing(self, rules):
        """{device: [attr]} of the settings ``rules`` would not give a device
        (the live value alone keeps them)."""
        for asked, answer in self._answers:
            if asked == rules:
                return answer
        if self._wants is None:
            self._wants = _wanted(self._devices, self._assigned, self._routed)
        # No rules give nothing: every wanted value is missing, without matching a rule.
        got = udev_targets.effective(rules, self._devices) if rules else {}
        missing = {}
        for name, wants in self._wants:
            has = got.get(name) or {}
            attrs = [attr for attr, key, want in wants if has.get(key) != want]
            if attrs:
                missing[name] = attrs
        self._answers.append((list(rules), missing))
        return missing


def kept(names, settings, missing):
    """The ``names`` that none of a rule's ``settings`` is ``missing`` on
    ({device: [attr]}), the rule's settings taken once, not per device."""
    settings = settings.keys()
    return [n for n in names if settings.isdisjoint(missing.get(n, ()))]
