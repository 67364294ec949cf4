"""What apply says once it has written (issue #37): the writes folded per rule
as the plan folds targets (``dm-0..dm-15, sda-sdbl queue/nr_requests``; ``-v``
lists each), then what survives a reboot: per policy setting, whether it is set
now or waits for a reboot or a restart, and what puts it back at boot. The
mechanism is never worked out here: it is the ``kept_by`` the families give
their compliant rules, the one `check` prints as "persisted by", read from the
plan made after the writes. A setting with none is said to be lost at reboot.
"""
import re
import textwrap

from numatune.report.grouped import ARROW, elide, ranges, targets_text, value

WIDTH = 79
LOST = "live only: lost at reboot"
PART_LOST = "the rest live only: lost at reboot"
_LINE = re.compile(r"(\S):\d+(?=\)|$|;)")
UNNAMED = "none named by the plan: see check after the reboot"


def write_lines(written):
    """One line per rule and (current, desired), its writes counted and its
    targets folded; ``written``: [(change, op)] as apply made them."""
    rules, order = {}, []
    for change, op in written:
        rule = change.rule or change.id
        if rule not in rules:
            rules[rule] = {"ops": [], "subs": {}}
            order.append(rule)
        entry = rules[rule]
        ops = entry["ops"]
        if not ops or ops[-1] is not op:    # a merged file op comes once per change it carries
            ops.append(op)
        entry["subs"].setdefault((change.current, change.desired), []).append(change.target)
    out = []
    for rule in order:
        entry = rules[rule]
        n = len(entry["ops"])
        count = " (%d write%s)" % (n, "" if n == 1 else "s")
        subs = list(entry["subs"].items())
        if len(subs) == 1:
            (current, desired), targets = subs[0]
            line = "  %s: %s%s" % (rule, _sub_line(targets, current, desired, WIDTH - 4 - len(rule) - len(count)),
                                   count)
        else:
            # Several values under one rule (a live value and its file): the targets, folded; -v has each.
            every = [t for _, targets in subs for t in targets]
            line = "  %s: %s%s" % (rule, targets_text(list(dict.fromkeys(every))), count)
        out.append(elide(line, WIDTH, middle=False) if len(line) > WIDTH else line)
    return out


def _sub_line(targets, current, desired, room):
    change = "%s %s %s" % (value(current), ARROW, value(desired))
    if len(change) > room - 16:
        change = "%s %s %s" % (elide(value(current), 16), ARROW, elide(value(desired), 20))
    return "%s: %s" % (elide(targets_text(list(dict.fromkeys(targets))), max(room - len(change) - 2, 12)), change)


def _related(item_id, ids, prefixes, subjects):
    """Whether a compliant rule's id speaks of one of a setting's changes: the
    same id, the id without its subject (``block.udev`` for each rule line), or
    the same subject under another prefix (``sysctl.persist:X`` for ``sysctl.live:X``).
    ``prefixes`` and ``subjects``: the ids' parts before and after their ":"."""
    prefix, _, subject = item_id.partition(":")
    return item_id in ids or (not subject and item_id in prefixes) or bool(subject and subject in subjects)


def _kept(rule, changes, compliant):
    ids = {c.id for c in changes}
    # Once per setting, not per compliant rule: a storage rule has 5,000 changes.
    prefixes = {i.partition(":")[0] for i in ids}
    subjects = {c.id.partition(":")[2] for c in changes} - {""}
    by = []
    for item in compliant:
        # A rule's own compliant entry, or its table's (``block[0]`` for ``block[0].nr_requests``).
        mine = item.rule == rule or rule.startswith(item.rule + ".") or _related(item.rule, ids, prefixes, subjects)
        # Several keepers of one value come "; "-joined (a boot argument and a tuned profile's line).
        for keeper in item.kept_by.split("; ") if item.kept_by and mine else []:
            if keeper not in by:
                by.append(keeper)
    for c in changes:
        # A boot line is kept by the bootloader files it edits; a file written is its own keeper.
        own = _bootloader(c) if c.scope == "boot" else ("file " + c.target.partition(": ")[0]
                                                         if c.scope == "persistent" else None)
        if own and not by and own not in by:
            by.append(own)
    return by


def _bootloader(change):
    """The bootloader, named by the files a boot change edits, as the boot family's compliant rules name it."""
    paths = dict.fromkeys(p for w in change.writes for p in ([w.path] if w.kind == "file" else w.files))
    return "bootloader (%s)" % ", ".join(paths) if paths else "bootloader"


def _now(changes):
    states = []
    if any(c.scope == "live" and not c.reboot_required and not c.restart_required for c in changes):
        states.append("now")
    if any(c.reboot_required for c in changes):
        states.append("reboot")
    if any(c.restart_required for c in changes):
        states.append("restart")
    if not states:
        states.append("file")  # persistent only: the file is written, the running value was already right
    return "+".join(states)


def survival(changes, compliant, findings=()):
    """[(policy setting, now, [mechanisms])] in plan order: no mechanism means
    the plan names none; [LOST] that a finding after the writes says nothing
    keeps it (``live_only``: an MTU no file configures, a boot unit that cannot
    run), PART_LOST after the mechanisms that a finding says so of a part."""
    by_rule, order = {}, []
    for c in changes:
        rule = c.rule or c.id
        if rule not in by_rule:
            by_rule[rule] = []
            order.append(rule)
        by_rule[rule].append(c)
    keeping = [item for item in compliant if item.kept_by]    # the others name no mechanism (_kept)
    lost = {r for f in findings if f.live_only for r in f.rule.split(",")}
    rows = []
    for rule in order:
        kept = _kept(rule, by_rule[rule], keeping)
        # Kept in part (a NIC's ring in its file, its MTU in none): both are said.
        rows.append((rule, _now(by_rule[rule]), kept + [PART_LOST] if kept and rule in lost else
                     kept or ([LOST] if rule in lost else [])))
    return rows


def _line_free(mechanism):
    """A mechanism without the line it is on (``tuned.conf:9`` -> ``tuned.conf``):
    the settings one file keeps share a row."""
    return _LINE.sub(r"\1", mechanism)


def _once(mechanism, said):
    """A mechanism's files are said on the first row that names it; later
    rows name it alone (``tuned profile numatune``): the table fits a screen."""
    name, paren, _ = mechanism.partition(" (")
    if paren and mechanism in said:
        return name
    said.add(mechanism)
    return mechanism


def table_lines(rows, live_only=False):
    """The survives-a-reboot table: settings that are set the same way and
    kept by the same file share a row (named under it, folded into ranges),
    a mechanism is wrapped under its column, never cut. A setting with none:
    lost at reboot when this run left out what keeps values (``live_only``);
    otherwise the plan names none, and `check` after the reboot tells."""
    groups, order = {}, []
    for rule, now, kept in rows:
        key = (now, tuple(dict.fromkeys(_line_free(k) for k in kept)) or (LOST if live_only else UNNAMED,))
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(rule)
    cells = [(names[0] if len(names) == 1 else "%d settings:" % len(names)) for names in
             (groups[k] for k in order)]
    first = min(max([len(c) for c in cells] + [7]), 30)
    second = max([len(now) for now, _ in order] + [3])
    room = WIDTH - 2 - first - 1 - second - 1
    out = ["  %-*s %-*s %s" % (first, "setting", second, "set", "what sets it again at boot")]
    said = set()
    for cell, (now, kept) in zip(cells, order):
        text = "; ".join(_once(k, said) for k in kept)
        wrapped = textwrap.wrap(text, max(room, 24), break_long_words=False, break_on_hyphens=False) or [""]
        out.append("  %-*s %-*s %s" % (first, elide(cell, first), second, now, wrapped[0]))
        out += [" " * (WIDTH - room) + w for w in wrapped[1:]]
        names = groups[(now, kept)]
        if len(names) > 1:
            out += textwrap.wrap(", ".join(ranges(names)), WIDTH, initial_indent="    ", subsequent_indent="    ",
                                 break_long_words=False, break_on_hyphens=False)
    return out


def next_step(changes, findings):
    """The one thing to do next."""
    if any(c.reboot_required for c in changes) or any(f.pending for f in findings):
        return "reboot, then numatune check"
    if any(c.restart_required for c in changes):
        return "restart what the table says, then numatune check"
    return "numatune check"
