"""What keeps [[block]] settings after a reboot or a hot-add: numatune's udev
rules file, and its section of /etc/multipath.conf. Drift is found by parsing
both files back, never by comparing text a user may have reformatted."""
from numatune.families.storage import multipath_conf, udev_rules
from numatune.families.storage.settings import SCHEDULER_NAMES, settings_of
from numatune.model import Change, Compliant, Finding, Write

# cache_type lives on the scsi_disk device, not the block device, and is
# written "temporary": it stays a live setting (see the finding below).
UDEV_ATTRS = {"scheduler": "queue/scheduler", "nr_requests": "queue/nr_requests",
              "max_sectors_kb": "queue/max_sectors_kb", "read_ahead_kb": "queue/read_ahead_kb",
              "rotational": "queue/rotational", "nomerges": "queue/nomerges", "rq_affinity": "queue/rq_affinity",
              "queue_depth": "device/queue_depth"}
SCSI_ONLY = ("queue_depth",)
BASE = [("ACTION", "==", "add|change"), ("SUBSYSTEM", "==", "block"), ("ENV{DEVTYPE}", "==", "disk")]


def _scheduler_value(wanted, devices, names):
    for name in names:
        sched = devices[name]["scheduler"]
        for candidate in SCHEDULER_NAMES[wanted]:
            if candidate == sched["current"] or candidate in sched["available"]:
                return candidate
    return None


def key_sets(rule, devices, expanded):
    """Match keys that select exactly ``expanded``: the rule's own selector,
    plus the multipath maps and paths it reaches only through a map."""
    own = udev_rules.selector_keys(rule["match"])
    rest = [n for n in expanded if not udev_rules.matches(own, devices[n])]
    # A selector udev cannot satisfy (a map's vendor is its paths') would be a dead rule.
    sets = [own] if len(rest) < len(expanded) else []
    maps = sorted(devices[n]["dm_uuid"] for n in rest if devices[n]["kind"] == "dm-multipath"
                  and devices[n]["dm_uuid"])
    if maps:
        sets.append(BASE + [("KERNEL", "==", "dm-*"), ("ENV{DM_UUID}", "==", "|".join(maps))])
    serials = set()
    for n in rest:
        dev = devices[n]
        if dev["kind"] == "dm-multipath":
            continue
        serial = dev["udev"].get("ID_SERIAL")
        if serial is None:
            # udev's scsi_id gives the paths of a map the map's WWID as ID_SERIAL.
            for holder in dev["holders"]:
                uuid = (devices.get(holder) or {}).get("dm_uuid") or ""
                if uuid.startswith("mpath-"):
                    serial = uuid[len("mpath-"):]
        if serial:
            serials.add(serial)
    if serials:
        sets.append(BASE + [("KERNEL", "!=", udev_rules.NOT_DISK),
                            ("ENV{ID_SERIAL}", "==", "|".join(sorted(serials)))])
    return sets


def desired_entries(data, facts, per_rule):
    """[(comment, keys, (attr_key, value))] for every rule that selects a device now."""
    devices = facts["devices"]
    entries = []
    for i, rule, direct, expanded, via in per_rule:
        if not expanded:
            continue
        comment = "block[%d]%s" % (i, ": " + rule["why"] if rule.get("why") else "")
        sets = key_sets(rule, devices, expanded)
        for attr, value in settings_of(rule).items():
            if attr not in UDEV_ATTRS:
                continue
            if attr == "scheduler":
                value = _scheduler_value(value, devices, expanded)
                if value is None:
                    continue
            for keys in sets:
                if attr in SCSI_ONLY and not any(udev_rules.matches(keys, devices[n]) and
                                                 devices[n]["kind"] != "dm-multipath" for n in expanded):
                    continue  # a map has no SCSI device: only its paths take queue_depth
                entries.append((comment, keys, ("ATTR{%s}" % UDEV_ATTRS[attr], value)))
    return entries


def udev(data, facts, per_rule):
    entries = desired_entries(data, facts, per_rule)
    text = facts.get("udev_rules")
    for i, rule, direct, expanded, via in per_rule:
        if "cache_type" in rule and expanded:
            yield Finding(id="block.cache_type-live:%d" % i, severity="info", area="storage",
                          target="block[%d].cache_type" % i, rule="block[%d].cache_type" % i,
                          message="cache_type is set live and temporarily (the kernel's view, not the "
                                  "device's mode page): it is not persisted; apply again after a reboot")
    if not entries and text is None:
        return
    wanted = [(keys, [assign]) for _, keys, assign in entries]
    try:
        current = udev_rules.parse(text) if text is not None else []
    except udev_rules.RuleSyntaxError as e:
        current = []
        yield Finding(id="block.udev-unparsable", severity="warning", area="storage", target=udev_rules.PATH,
                      rule="block", message="%s: %s; numatune rewrites the whole file" % (udev_rules.PATH, e))
    if current == wanted:
        if wanted:
            yield Compliant("block.udev", "%s holds the %d rule(s) of the policy" % (udev_rules.PATH, len(wanted)),
                            "storage")
        return
    content = udev_rules.render(entries) if entries else None
    write = Write(kind="file", path=udev_rules.PATH, editor="block_udev_rules", args={"content": content})
    shown = [udev_rules.format_rule(keys, assigns[0]) for keys, assigns in current if assigns]
    for comment, keys, assign in entries:
        line = udev_rules.format_rule(keys, assign)
        if (keys, [assign]) in current:
            continue
        yield Change(id="block.udev:%s" % line, area="storage", target="%s: %s" % (udev_rules.PATH, comment),
                     current=None, desired=line, scope="persistent", action="add the rule to %s" % udev_rules.PATH,
                     why=comment.partition(": ")[2] or "so devices added later get the setting too",
                     rule=comment.split(":")[0],
                     writes=[write])
    for (keys, assigns), line in zip([r for r in current if r[1]], shown):
        if (keys, assigns) in wanted:
            continue
        yield Change(id="block.udev-remove:%s" % line, area="storage", target=udev_rules.PATH, current=line,
                     desired="(removed)", scope="persistent", action="remove a rule the policy no longer has",
                     rule="block", writes=[write])


def udev_rules_file(text, content):
    """Editor: numatune's whole rules file (None removes it)."""
    return content


def multipath(data, facts, per_rule):
    devices = []
    for i, rule, direct, expanded, via in per_rule:
        if "multipath" in rule and expanded:
            devices.append({"vendor": multipath_conf.glob_regex(rule["match"]["vendor"]),
                            "product": multipath_conf.glob_regex(rule["match"]["model"]),
                            "settings": dict(rule["multipath"])})
    text = facts.get("multipath_conf")
    if text is None:
        if devices:
            yield Finding(id="block.multipath-absent", severity="warning", area="storage", target=multipath_conf.PATH,
                          rule="block.multipath", message="%s does not exist (multipath is not configured): its "
                          "device settings are not planned" % multipath_conf.PATH)
        return
    try:
        current = multipath_conf.current_section(text)
    except multipath_conf.ConfSyntaxError as e:
        yield Finding(id="block.multipath-unsafe", severity="critical", area="storage", target=multipath_conf.PATH,
                      rule="block.multipath", message="%s: %s: not edited" % (multipath_conf.PATH, e),
                      why="fix or remove numatune's markers by hand")
        return
    have = multipath_conf.parse_devices(current or "")
    want = [{"vendor": d["vendor"], "product": d["product"],
             "settings": {k: multipath_conf._value(v).strip('"') for k, v in d["settings"].items()}}
            for d in devices]
    if have == want:
        if want:
            yield Compliant("block.multipath", "%s: numatune's section has %s" % (
                multipath_conf.PATH, ", ".join("%s/%s" % (d["vendor"], d["product"]) for d in want)), "storage")
        return
    writes = [Write(kind="file", path=multipath_conf.PATH, editor="multipath_section", args={"devices": devices})]
    restart = True
    if facts.get("live") and facts.get("multipathd"):
        writes.append(Write(kind="command", path=facts["multipathd"],
                            argv=[facts["multipathd"], "reconfigure"], files=[]))
        restart = False
    yield Change(id="block.multipath", area="storage", target="%s: numatune section" % multipath_conf.PATH,
                 current=_summary(have), desired=_summary(want), scope="persistent",
                 action="edit numatune's section" + ("" if restart else ", then multipathd reconfigure"),
                 why="; ".join(r.get("why", "") for _, r, _, e, _ in per_rule if "multipath" in r and e),
                 restart_required=restart, rule="block.multipath", writes=writes)
    if restart:
        yield Finding(id="block.multipath-reconfigure", severity="info", area="storage", target=multipath_conf.PATH,
                      rule="block.multipath",
                      message="after apply, run `multipathd reconfigure` on the host for multipath.conf to take effect")


def _summary(devices):
    if not devices:
        return None
    return "; ".join("%s/%s: %s" % (d["vendor"], d["product"],
                                    ", ".join("%s %s" % kv for kv in sorted(d["settings"].items())))
                     for d in devices)
