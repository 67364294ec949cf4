"""What keeps [[block]] settings after a reboot or a hot-add: numatune's udev
rules file, and its section of /etc/multipath.conf. Drift is found by parsing
both files back, never by comparing text a user may have reformatted."""
from numatune.families.storage import multipath_conf, multipathd, udev_rules, udev_targets
from numatune.families.storage.coverage import SCSI_ONLY, UDEV_ATTRS
from numatune.families.storage.settings import SCHEDULER_NAMES, settings_of
from numatune.model import Change, Compliant, Finding, Write

# UDEV_ATTRS: what a udev rule can keep (cache_type is written "temporary": a live setting, see
# the finding below); they live with the coverage that compares against them.


def _scheduler_names(wanted, devices, names):
    """The names a rule may assign, best first: only those a selected
    device offers (a rule for a scheduler no device has would be dead)."""
    offered = set()
    for name in names:
        sched = devices[name]["scheduler"]
        offered.update(sched["available"] or ())
        offered.add(sched["current"])
    return [n for n in SCHEDULER_NAMES[wanted] if n in offered]


def desired_entries(data, facts, per_rule, routed=()):
    """([(comment, keys, (assign key, value))], findings) for every rule
    that selects a device now; a line two rules would both write is kept
    once, where the later rule puts it (later rules win, as in udev).
    ``routed``: (rule index, attr) that another mechanism keeps (a tuned
    profile's [disk]), left out of the rules."""
    devices = facts["devices"]
    entries, findings = [], []
    memo = udev_rules.memo_for(devices)   # which devices each udev key matches, shared by the rules
    for i, rule, direct, expanded, via in per_rule:
        if not expanded:
            continue
        comment = "block[%d]%s" % (i, ": " + rule["why"] if rule.get("why") else "")
        sets, general = udev_targets.target_sets(rule, devices, direct, expanded, memo)
        if not general:
            findings.append(Finding(
                id="block.udev-pinned:%d" % i, severity="warning", area="storage", target="block[%d]" % i,
                rule="block[%d].match" % i,
                message="block[%d]: the multipath maps it selects share no WWID vendor prefix that sets them apart "
                        "from the other maps: the udev rules name today's LUNs, so a LUN added later gets these "
                        "settings only from the next `numatune apply`" % i,
                why='select the maps by dm_name or wwn (e.g. match = { dm_name = "ora_*" })'))
        for attr, value in settings_of(rule).items():
            if attr not in UDEV_ATTRS or (i, attr) in routed:
                continue
            names = None
            if attr == "scheduler":
                names = _scheduler_names(value, devices, expanded)
                if not names:
                    continue
            for keys, mode, maps_only in sets:
                if attr in SCSI_ONLY and mode == "self" and maps_only:
                    continue  # a map has no SCSI device: only its paths take queue_depth
                for rule_keys, assign in udev_targets.assignments(UDEV_ATTRS[attr], value, names, keys, mode):
                    entries.append((comment, rule_keys, assign))
    seen, kept = set(), []
    for comment, keys, assign in reversed(entries):
        line = udev_rules.format_rule(keys, assign)
        if line not in seen:
            seen.add(line)
            kept.append((comment, keys, assign))
    return kept[::-1], findings


def current_rules(facts):
    """The rules numatune's file holds now ([] when absent or unparsable)."""
    try:
        return udev_rules.parse(facts.get("udev_rules") or "")
    except udev_rules.RuleSyntaxError:
        return []


def _live_only(per_rule, missing):
    by_rule = {}
    # Each rule's devices as a set and its settings once: 4,096 paths missing a setting
    # looked up in each rule's list made this quadratic (0.7 s of a giant host's plan).
    rules = [(i, set(expanded), settings_of(rule)) for i, rule, direct, expanded, via in per_rule]
    for name, attrs in missing.items():
        for attr in attrs:
            for i, expanded, settings in rules:
                if name in expanded and attr in settings:
                    by_rule.setdefault((i, attr), []).append(name)
    for (i, attr), names in sorted(by_rule.items()):
        shown = ", ".join(names[:6]) + (" and %d more" % (len(names) - 6) if len(names) > 6 else "")
        yield Finding(id="block.live-only:%d:%s" % (i, attr), severity="warning", area="storage",
                      target="block[%d].%s" % (i, attr), rule="block[%d].%s" % (i, attr), live_only=True,
                      message="%s on %s stays live only: no udev rule numatune can write selects %s, so a reboot "
                              "or re-add loses it" % (attr, shown, "it" if len(names) == 1 else "them"),
                      why="select these devices by vendor/model, wwn, a udev property or dm_name")


def udev(data, facts, per_rule, covered=None, routed=()):
    """``covered``: the plan's coverage.Coverage of its assigned settings (None: nothing assigned)."""
    entries, findings = desired_entries(data, facts, per_rule, routed)
    yield from findings
    text = facts.get("udev_rules")
    if covered is not None:
        wanted_rules = [(keys, [assign]) for _, keys, assign in entries]
        yield from _live_only(per_rule, covered.missing(wanted_rules))
    for i, rule, direct, expanded, via in per_rule:
        if "cache_type" in rule and expanded:
            yield Finding(id="block.cache_type-live:%d" % i, severity="info", area="storage",
                          target="block[%d].cache_type" % i, rule="block[%d].cache_type" % i, live_only=True,
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
            yield Compliant("block.udev", "the policy's %d udev rule(s) in place" % len(wanted),
                            "storage", kept_by="udev rule file %s" % udev_rules.PATH)
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
        if not want:
            return
        loaded, how = multipathd.state(want, facts)
        if loaded == "stale":
            # The file is right, the daemon still runs the old settings.
            yield Finding(id="block.multipath-reconfigure", severity="warning", area="storage",
                          target=multipath_conf.PATH, rule="block.multipath", pending=True,
                          message="%s has numatune's section but multipathd has not read it (%s): run "
                                  "`multipathd reconfigure` on the host" % (multipath_conf.PATH, how))
            return
        yield Compliant("block.multipath", "%s: numatune's section has %s%s" % (
            multipath_conf.PATH, ", ".join("%s/%s" % (d["vendor"], d["product"]) for d in want),
            "; multipathd runs it" if loaded == "loaded" else " (%s)" % how), "storage")
        return
    # One op edits the file and, where the daemon runs, reconfigures it
    # (multipath_write: revert puts the file back and reconfigures again).
    state = facts.get("multipathd_state") or {}
    running = bool(facts.get("live") and facts.get("multipathd") and state.get("responding"))
    argv = [facts["multipathd"], "reconfigure"] if running else []
    restart = not facts.get("live")
    action = "edit numatune's section"
    if running:
        action += ", then multipathd reconfigure (the maps' queue settings are kept across its reload)"
    elif facts.get("live"):
        action += " (multipathd is not running: it reads the file when it starts)"
    yield Change(id="block.multipath", area="storage", target="%s: numatune section" % multipath_conf.PATH,
                 current=_summary(have), desired=_summary(want), scope="persistent", action=action,
                 why="; ".join(r.get("why", "") for _, r, _, e, _ in per_rule if "multipath" in r and e),
                 restart_required=restart, rule="block.multipath",
                 writes=[Write(kind="multipath", path=multipath_conf.PATH, editor="multipath_section",
                               args={"devices": devices}, argv=argv)])
    if restart:
        yield Finding(id="block.multipath-reconfigure", severity="info", area="storage", target=multipath_conf.PATH,
                      rule="block.multipath", follows="block.multipath", message="after apply, run `multipathd reconfigure` on the host for "
                                                      "multipath.conf to take effect (pending until it has run)")


def _summary(devices):
    if not devices:
        return None
    return "; ".join("%s/%s: %s" % (d["vendor"], d["product"],
                                    ", ".join("%s %s" % kv for kv in sorted(d["settings"].items())))
                     for d in devices)
