"""Which udev rules keep a [[block]] rule's settings for the devices it
selects now and for the ones added later (new paths, new LUNs).

A rule is written by its selector, never by today's serial numbers:

- what the selector itself says to udev (vendor/model/WWN/udev property on
  the SCSI paths, DM_NAME or kind on the maps) selects future devices too;
- a multipath map has no SCSI inquiry data of its own, so a map reached by
  vendor/model is selected by its DM_UUID pattern ``mpath-<NAA+OUI>*`` (the
  array vendor's IEEE OUI is part of every LUN's WWID), or by its WWN;
- the paths of a map the selector cannot see on the paths (a dm_name rule)
  get the setting from the map's own add/change event, which loops over its
  ``slaves/`` (a new path of the map reloads it: a change event).

A setting a device does not offer is never assigned: the scheduler rules
match on ``queue/scheduler`` offering the name first. An ``at_least`` floor
is a ``RUN+=`` that reads the value and writes the floor only where it is
lower (udev's ``ATTR{}=`` cannot compare), on the device or on each path.
"""
import re

from numatune.families.storage import udev_rules
from numatune.families.storage.facts import normalize_wwn
from numatune.families.storage.settings import FLOOR, floor_of

BASE = [("ACTION", "==", "add|change"), ("SUBSYSTEM", "==", "block"), ("ENV{DEVTYPE}", "==", "disk")]
MAPS = [("KERNEL", "==", "dm-*")]
# NAA 5 and 6 identifiers carry the vendor's OUI in their first 7 hex digits.
_NAA_OUI = re.compile(r"^mpath-3([56][0-9a-f]{6})", re.I)
_SLAVES = "/bin/sh -c 'for p in /sys$devpath/slaves/*; do "
_SLAVE_SET = re.compile(r"^/bin/sh -c 'for p in /sys\$devpath/slaves/\*; do echo (\S+) > \$\$p/(\S+); done'$")
_SLAVE_SCHED = re.compile(r"^/bin/sh -c 'for p in /sys\$devpath/slaves/\*; do read l < \$\$p/queue/scheduler; "
                          r"for s in ([a-z -]+); do case")


def offers(name):
    """udev glob: a queue/scheduler file that offers ``name`` as a word
    ("mq-deadline" is not "deadline"), bracketed or not."""
    return "|".join((name, "%s[] ]*" % name, "*[[ ]%s" % name, "*[[ ]%s[] ]*" % name))


def scheduler_keys(names):
    """[(extra keys, name)]: each candidate only where no better one is offered."""
    out = []
    for i, name in enumerate(names):
        extra = [("ATTR{queue/scheduler}", "!=", offers(better)) for better in names[:i]]
        out.append((extra + [("ATTR{queue/scheduler}", "==", offers(name))], name))
    return out


def slave_run(attr_path, value, names=None):
    """The RUN program of a map that sets ``attr_path`` on each of its paths.
    No double quote or backslash: udev before systemd 24x cannot escape them."""
    if names:
        pats = "|".join(("$$s", "$$s[][:blank:]]*", "*[[:blank:][]$$s", "*[[:blank:][]$$s[][:blank:]]*"))
        return (_SLAVES + "read l < $$p/queue/scheduler; for s in %s; do case $$l in %s) "
                "echo $$s > $$p/queue/scheduler; break;; esac; done; done'" % (" ".join(names), pats))
    return _SLAVES + "echo %s > $$p/%s; done'" % (value, attr_path)


def _raise_to(path, floor):
    """sh that writes ``floor`` to ``path`` only where it reads lower."""
    return "read v < %s; [ $$v -ge %d ] || echo %d > %s" % (path, floor, floor, path)


def floor_run(attr_path, floor, slaves=False):
    """The RUN program of an at_least floor, on the device or on each path of a map."""
    if slaves:
        return _SLAVES + _raise_to("$$p/" + attr_path, floor) + "; done'"
    return "/bin/sh -c '%s'" % _raise_to("/sys$devpath/" + attr_path, floor)


_FLOOR_SELF = re.compile(r"^/bin/sh -c 'read v < /sys\$devpath/(\S+); \[ \$\$v -ge (\d+) \]")
_FLOOR_SLAVES = re.compile(r"^/bin/sh -c 'for p in /sys\$devpath/slaves/\*; do read v < \$\$p/(\S+); "
                           r"\[ \$\$v -ge (\d+) \]")


def parse_floor_run(text):
    """(attr_path, ">=N", on the paths) of a floor RUN we wrote, else None."""
    for pattern, slaves in ((_FLOOR_SELF, False), (_FLOOR_SLAVES, True)):
        m = pattern.match(text)
        if m and text == floor_run(m.group(1), int(m.group(2)), slaves):
            return m.group(1), "%s%s" % (FLOOR, m.group(2)), slaves
    return None


def parse_slave_run(text):
    """(attr_path, value or None, names or None) of a RUN we wrote, else None."""
    m = _SLAVE_SCHED.match(text)
    if m:
        return "queue/scheduler", None, m.group(1).split()
    m = _SLAVE_SET.match(text)
    if m:
        return m.group(2), m.group(1), None
    return None


_MAPS = "multipath maps"  # their memo entry: a string, never a udev key (a tuple) or a rule's keys


def _multipath_maps(devices, memo):
    """The names of the multipath maps among ``devices``, kept in ``memo`` (one per ``devices``)."""
    got = memo.get(_MAPS)
    if got is None:
        got = memo[_MAPS] = frozenset(n for n, d in devices.items() if d["kind"] == "dm-multipath")
    return got


def _map_keys(match, devices, maps, memo):
    """(keys that select ``maps`` and later LUNs like them, general) for maps
    the selector reaches only through their paths' inquiry data."""
    if "wwn" in match:
        return BASE + MAPS + [("ENV{DM_UUID}", "==", "mpath-3" + normalize_wwn(match["wwn"]))], True
    ouis = {(_NAA_OUI.match(devices[n]["dm_uuid"] or "") or [None, None])[1] for n in maps}
    if len(ouis) == 1 and None not in ouis:
        pattern = "mpath-3%s*" % ouis.pop()
        keys = BASE + MAPS + [("ENV{DM_UUID}", "==", pattern)]
        hit = udev_rules.matching(keys, devices, memo)
        # No other map answers to the pattern (4,096 maps: sets, not a lookup per map).
        if (hit & _multipath_maps(devices, memo)) <= set(maps):
            return keys, True
    # No pattern tells these LUNs from the others: name today's maps, and say so.
    uuids = sorted(devices[n]["dm_uuid"] for n in maps if devices[n]["dm_uuid"])
    return (BASE + MAPS + [("ENV{DM_UUID}", "==", "|".join(uuids))] if uuids else None), False


def target_sets(rule, devices, direct, expanded, memo=None):
    """([(keys, mode, maps_only)], general): mode "self" assigns on the
    matched device, "slaves" on the paths of a matched map. ``general`` is
    False when later LUNs are not covered (maps named by their WWIDs).
    ``memo``: udev_rules.matching's, shared by the rules of one plan."""
    memo = {} if memo is None else memo
    own = udev_rules.selector_keys(rule["match"])
    covered = set(expanded) & udev_rules.matching(own, devices, memo)
    sets, general = [], True
    if covered:
        sets.append((own, "self", all(devices[n]["kind"] == "dm-multipath" for n in covered)))
    maps = [n for n in direct if devices[n]["kind"] == "dm-multipath" and n not in covered]
    if maps:
        keys, general = _map_keys(rule["match"], devices, maps, memo)
        if keys:
            sets.append((keys, "self", True))
            covered |= set(maps) & udev_rules.matching(keys, devices, memo)
    # The paths this rule wants that no set reaches itself (4,096 paths: a list lookup per slave was quadratic).
    unreached = set(expanded) - covered
    for keys, mode, maps_only in list(sets):
        hit = udev_rules.matching(keys, devices, memo)
        slaves = set()
        for n in covered & hit & _multipath_maps(devices, memo):
            slaves.update(devices[n]["slaves"])
        if not slaves.isdisjoint(unreached):
            sets.append((keys, "slaves", False))
    return sets, general


def assignments(attr_path, value, names, keys, mode):
    """[(keys, (assign key, value))] for one setting on one target set."""
    floor = floor_of(value)
    if floor is not None:
        return [(keys, ("RUN", floor_run(attr_path, floor, slaves=mode == "slaves")))]
    if mode == "slaves":
        return [(keys, ("RUN", slave_run(attr_path, value, names)))]
    if names:
        return [(keys + extra, ("ATTR{queue/scheduler}", name)) for extra, name in scheduler_keys(names)]
    return [(keys, ("ATTR{%s}" % attr_path, value))]


def _offered(device, names):
    available = device["scheduler"]["available"] or []
    current = device["scheduler"]["current"]
    return next((n for n in names if n in available or n == current), None)


def effective(rules, devices):
    """{device: {"ATTR{attr}": value}} the rules give every device, slaves
    of a map included; later rules win, as in udev."""
    out = {name: {} for name in devices}
    memo = udev_rules.memo_for(devices)
    for keys, assigns in rules:
        hit = udev_rules.matching(keys, devices, memo)
        # One assignment (every rule numatune writes) gives a device, or a map's path, one
        # value whichever device comes first: only the matched ones are visited. Several
        # (a hand-edited rule) may give a path two, the last one by device order.
        # Each RUN program parsed once for the rule, not once per device it matches.
        programs = [(key, value, parse_floor_run(value) if key == "RUN" else None) for key, value in assigns]
        programs = [(key, value, floor, parse_slave_run(value) if key == "RUN" and not floor else None)
                    for key, value, floor in programs]
        if len(assigns) == 1 and programs[0][0] != "RUN":
            # An ATTR{} a rule assigns (most of them): the value to each matched device, nothing else to work out.
            key, value = assigns[0]
            for name in hit:
                out[name][key] = value
            continue
        for name in (hit if len(assigns) == 1 else [n for n in devices if n in hit]):
            dev = devices[name]
            for key, value, floor, on_slaves in programs:
                if key != "RUN":
                    out[name][key] = value
                    continue
                if floor:
                    attr_path, spec, on_paths = floor
                    for target in (dev["slaves"] if on_paths else [name]):
                        if target in devices:
                            out[target]["ATTR{%s}" % attr_path] = spec
                    continue
                if not on_slaves:
                    continue
                attr_path, fixed, names = on_slaves
                for slave in dev["slaves"]:
                    if slave in devices:
                        got = _offered(devices[slave], names) if names else fixed
                        if got is not None:
                            out[slave]["ATTR{%s}" % attr_path] = got
    return out
