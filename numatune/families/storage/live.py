"""[[block]]'s live diff: the one change or finding of each device's
setting, from the facts' current values (a giant host has 5,000 devices
and 35,000 settings, most of them alike).

What a setting shares over the devices a rule selects (its floor, rule
key, why, the target's attribute part, the write's kind) is worked out
once per setting, and what a device shares over its settings (its id and
target prefixes, its settings' record) once per device; a device's
assigned settings are put in write order once per dict of them (devices the
same rules set share one).
"""
from numatune.errors import PolicyError
from numatune.model import Change, Finding, Write
from numatune.families.storage.settings import ATTRS, SCHEDULER_NAMES, SCSI_ATTRS, floor_of


def resolve_scheduler(wanted, dev):
    """(name to write or None when compliant, finding message or None)."""
    sched = dev["scheduler"]
    names = SCHEDULER_NAMES[wanted]
    if sched["current"] in names:
        return None, None
    for name in names:
        if name in sched["available"]:
            return name, None
    if not sched["available"]:
        return None, "%s has no I/O scheduler to choose (a bio-based device)" % dev["name"]
    return None, "%s offers %s, none of %s" % (dev["name"], " ".join(sched["available"]), "/".join(names))


def _ids(dev, attr, index):
    return "block.live:%s:%s" % (dev["name"], attr), "block[%d].%s" % (index, attr)


def _scheduler(dev, attr, value, index, rule, via, resolved):
    """The scheduler's change or finding, or None when compliant. ``resolved``: resolve_scheduler's answer."""
    name, problem = resolved
    if problem:
        cid, rule_key = _ids(dev, attr, index)
        # A queue with no elevator to choose (a map whose paths schedule, a bio-based device) can never
        # take one: said, as info, not drift that no apply clears (#36).
        fixed = set(dev["scheduler"]["available"]) <= {"none"}
        return Finding(id=cid, severity="info" if fixed else "warning", area="storage", target=dev["name"],
                       rule=rule_key, message=problem + ": scheduler not set")
    if name:
        cid, rule_key = _ids(dev, attr, index)
        where = "%s (path of %s)" % (dev["name"], via) if via else dev["name"]
        sysfs = dev["sysfs"] + "/queue/"
        return Change(id=cid, area="storage", target="%s queue/%s" % (where, attr),
                      current=dev["scheduler"]["current"],
                      desired=name, scope="live", action="write %sscheduler" % sysfs, why=rule.get("why", ""),
                      rule=rule_key,
                      drift_severity="warning",
                      writes=[Write(kind="blockattr", path=sysfs + "scheduler", value=name, format="bracket",
                                    args={"coupled": [sysfs + "nr_requests"]})])
    return None


def _shared(attr, value, rule, index):
    """What a rule's setting is the same for on each device it selects:
    (attr, value, index, rule, floor, rule key, why, the target's attribute
    part, the risk, the drift severity)."""
    return (attr, value, index, rule, floor_of(value), "block[%d].%s" % (index, attr), rule.get("why", ""),
            attr if attr in SCSI_ATTRS else "queue/" + attr,
            "high" if attr == "cache_type" else "low",
            # Queue settings off target cost throughput, not data: a warning. cache_type is data-loss risk.
            "" if attr == "cache_type" else "warning")


def _setting(dev, settings, shared, via_head, switch):
    """The change or finding of one non-scheduler setting, or None when it is
    compliant. Ids and texts are formatted only for what is not compliant: a
    compliant giant host (the usual `check`) has 30,000 settings that need none."""
    attr, value, index, rule, floor, rule_key, why, attr_part, risk, severity = shared
    setting = settings.get(attr) or {}
    current = setting.get("value")
    name = dev["name"]
    if current is None:
        if dev["kind"] == "dm-multipath" and attr in SCSI_ATTRS:
            return None  # a map has no SCSI device of its own; its paths carry the setting
        what = "not a SCSI disk" if attr in SCSI_ATTRS else "no such attribute"
        return Finding(id="block.live:%s:%s" % (name, attr), severity="info", area="storage", target=name,
                       rule=rule_key, message="%s has no %s (%s): not set" % (name, attr, what))
    if attr == "max_sectors_kb":
        hw = (settings.get("max_hw_sectors_kb") or {}).get("value")
        if hw is not None and int(value) > int(hw):
            raise PolicyError("block[%d]: max_sectors_kb = %s is above %s's max_hw_sectors_kb %s"
                              % (index, value, name, hw),
                              "the device cannot take larger requests: use at most %s" % hw)
    if floor is not None:
        # at_least: a host value already higher is the one to keep (and to write back after a scheduler
        # switch resets nr_requests). A value that is not a number is left alone, and said so.
        if not current.strip().isdigit():
            return Finding(id="block.live:%s:%s" % (name, attr), severity="warning", area="storage", target=name,
                           rule=rule_key, message="%s %s reads %r, not a number to compare with at_least %d: not set"
                                                  % (name, attr, current, floor))
        value = str(max(int(current), floor))
    # Switching the scheduler resets nr_requests, so it is written again after.
    if current == value and not (switch and attr == "nr_requests"):
        return None
    path = setting["path"]
    if attr == "cache_type":
        write = Write(kind="blockattr", path=path, value=value, args={"prefix": "temporary "})
    else:
        write = Write(kind="value", path=path, value=value)
    return Change(id="block.live:%s:%s" % (name, attr), area="storage", target=via_head + attr_part,
                  current=current, desired=value, scope="live", action="write " + path, why=why, rule=rule_key,
                  risk=risk, writes=[write], drift_severity=severity)


def items(devices, assigned, rules, vias, order):
    """(rule index, device, change or finding) of every assigned setting that
    is not compliant, devices in ``order``, each device's settings in write order."""
    shared, plans = {}, {}
    for name in order:
        dev = devices[name]
        attrs = assigned[name]
        # Most devices of a giant host are given the same settings by the same rules: one dict
        # (knob._select), held here with its plan, so that its id is no other's while this runs.
        todo = plans.get(id(attrs))
        if todo is None or todo[0] is not attrs:
            todo = plans[id(attrs)] = (attrs, [])
            for attr in ATTRS:
                if attr in attrs:
                    value, index = attrs[attr]
                    got = shared.get((attr, value, index))
                    if got is None:
                        got = shared[(attr, value, index)] = _shared(attr, value, rules[index], index)
                    todo[1].append(got)
        via = vias.get(name)
        via_head = "%s (path of %s) " % (name, via) if via else name + " "
        settings = dev.get("settings", {})
        switch = False
        for got in todo[1]:
            attr, value, index, rule = got[:4]
            if attr == "scheduler":
                resolved = resolve_scheduler(value, dev)
                switch = resolved[0] is not None
                item = _scheduler(dev, attr, value, index, rule, via, resolved)
            else:
                item = _setting(dev, settings, got, via_head, switch)
            if item is not None:
                yield index, name, item
