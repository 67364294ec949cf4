"""What the plan table shows: changes grouped by area, the findings group,
the filters, and each row's cells. Pure (no Textual, no I/O), so it is
tested on plain Plan objects and shared by every screen."""
import os
from dataclasses import dataclass
from typing import Optional

from numatune.model import AREAS, SEVERITIES
from numatune.report.grouped import ARROW, SEVERITY

FINDINGS = "findings"
SCOPE_SHORT = {"live": "live", "persistent": "persistent", "boot": "boot"}  # whole: the column fits them
RISK_SHORT = {"low": "low", "medium": "medium", "high": "HIGH"}
SEVERITY_SHORT = SEVERITY  # one spelling with the CLI and check (the name is kept for its importers)
# Rich style names, kept in step with render.COLORS of the text output.
STYLE = {"live": "green", "persistent": "blue", "boot": "magenta",
         "low": "dim", "medium": "yellow", "high": "bold red",
         "info": "cyan", "warning": "yellow", "critical": "bold red",
         "group": "bold", "selected": "bold green", "unselected": "dim"}
# (label, least width, share of what is left). The least widths fill 80
# columns with the details pane below; a wider table gives what is left to
# the target and the values, which are what gets cut. The values get 22: at
# 80 columns both last numbers of a socket buffer triple show
# ("…33554432 -> 4…6291456"), and a target keeps its key (target_text).
COLUMNS = (("", 1, 0), ("scope", 10, 0), ("target", 25, 3), ("current%sdesired" % ARROW, 22, 2), ("", 2, 0),
           ("risk", 6, 0))
CELL_PADDING = 2  # DataTable's cell_padding on both sides of every column
TARGET = 2        # the target column's index
# Beside a wide table the details pane keeps this many columns (its border included): its why and
# policy line read at this width; what a wider terminal adds goes first to the targets.
DETAILS_LEAST = 48
SCROLLBAR = 2     # the table keeps its vertical scrollbar's room (tables.FittedTable)


def column_widths(room, columns=COLUMNS, wanted=None):
    """Each column's width when the table has ``room`` cells across: the
    least widths; what is left goes first to the columns ``wanted`` ({index:
    width}) until they hold it, the rest split by share (never less than the least)."""
    least = sum(w for _, w, _ in columns) + CELL_PADDING * len(columns)
    spare = max(room - least, 0)
    widths = [w for _, w, _ in columns]
    for i, want in sorted((wanted or {}).items()):
        give = min(max(want - widths[i], 0), spare)
        widths[i] += give
        spare -= give
    shares = sum(s for _, _, s in columns) or 1
    widths = [w + spare * s // shares for w, (_, _, s) in zip(widths, columns)]
    # What integer division left over goes to the first growing column.
    rest = spare - sum(spare * s // shares for _, _, s in columns)
    grow = next((i for i, (_, _, s) in enumerate(columns) if s), None)
    if grow is not None:
        widths[grow] += rest
    return tuple(widths)


def longest_target(plan):
    """What the target column needs to show every change's target whole."""
    return max((len(c.target) for c in plan.changes), default=0)


def wide_table_width(screen, plan, share=65):
    """The plan table's width beside the details pane on a ``screen``-wide
    terminal: ``share`` percent, more where the longest target needs it, as
    long as the details keep DETAILS_LEAST; never below the columns' least."""
    least = sum(w for _, w, _ in COLUMNS) + CELL_PADDING * len(COLUMNS) + SCROLLBAR
    need = least + max(longest_target(plan) - COLUMNS[TARGET][1], 0)
    return max(least, min(max(screen * share // 100, need), screen - DETAILS_LEAST))


@dataclass
class Filters:
    area: Optional[str] = None        # None: every area
    severity: str = "info"            # the least severe finding shown
    high_risk_only: bool = False
    search: str = ""

    def change_matches(self, change):
        if self.area and change.area != self.area:
            return False
        if self.high_risk_only and change.risk != "high":
            return False
        return _contains(self.search, change.id, change.target, change.current, change.desired,
                         change.action, change.why, change.rule)

    def finding_matches(self, finding):
        if self.area and finding.area and finding.area != self.area:
            return False
        if SEVERITIES.index(finding.severity) < SEVERITIES.index(self.severity):
            return False
        if self.high_risk_only and finding.severity != "critical":
            return False
        return _contains(self.search, finding.id, finding.target, finding.message, finding.why, finding.rule)

    def describe(self):
        parts = ["area %s" % (self.area or "all")]
        if self.severity != "info":
            parts.append("findings >= %s" % self.severity)
        if self.high_risk_only:
            parts.append("high risk only")
        if self.search:
            parts.append("/%s" % self.search)
        return ", ".join(parts)


def _contains(needle, *haystack):
    if not needle:
        return True
    needle = needle.lower()
    return any(needle in str(h).lower() for h in haystack if h)


@dataclass
class Row:
    kind: str            # "group", "change" or "finding"
    group: str           # the area, or FINDINGS
    item: object = None  # the Change or Finding; None for a group row
    count: int = 0       # group rows: how many rows the filters let through
    members: tuple = ()  # group rows: the ids of every change in the area


def groups(plan):
    """Areas with changes, in the plan's order, then the findings group."""
    order = {a: i for i, a in enumerate(AREAS)}
    names = sorted({c.area for c in plan.changes}, key=lambda a: (order.get(a, len(order)), a))
    if plan.findings:
        names.append(FINDINGS)
    return names


def visible_rows(plan, filters, expanded):
    """The table's rows: a header for every group something passes the
    filters in, and the group's items when it is expanded."""
    rows = []
    by_area, members = {}, {}
    for c in plan.changes:
        members.setdefault(c.area, []).append(c.id)
        if filters.change_matches(c):
            by_area.setdefault(c.area, []).append(("change", c))
    for name in groups(plan):
        if name == FINDINGS:
            items = [("finding", f) for f in plan.findings if filters.finding_matches(f)]
        else:
            items = by_area.get(name, [])
        if not items:
            continue
        rows.append(Row("group", name, None, len(items), tuple(members.get(name, ()))))
        if name in expanded:
            rows.extend(Row(kind, name, item) for kind, item in items)
    return rows


def value_text(v):
    if v is None:
        return "(unset)"
    return v if v != "" else '""'


def flags(change):
    return ("R" if change.reboot_required else "") + ("S" if change.restart_required else "")


def squeeze(text, width):
    """``text`` in ``width`` cells, cut in the middle: both ends stay, as a
    value's last number ("... 6291456") or a target's key says most."""
    text = str(text)
    if width is None or len(text) <= width:
        return text
    if width < 3:
        return text[:width]
    head = (width - 1) // 3
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def target_text(target, width):
    """A target in its column: "FILE: KEY" keeps the key whole and cuts the
    file (a row of sysctl.d edits must say which key each is)."""
    if width is None or len(target) <= width:
        return target
    path, sep, key = target.rpartition(": ")
    if not sep:
        return squeeze(target, width)
    room = width - len(key) - 3
    # The key is what tells the rows apart; the scope column already says "persistent".
    return path[:room] + "…: " + key if room >= 1 else squeeze(key, width)


def values_text(current, desired, width):
    """current -> desired in ``width`` cells: each value keeps both its ends
    (a cut at the end hides a reduction: "4096 131072 3355..." of both)."""
    now, wanted = value_text(current), value_text(desired)
    whole = "%s %s %s" % (now, ARROW, wanted)
    if width is None or len(whole) <= width:
        return whole
    room = width - len(ARROW) - 2
    # A short side ("(unset)", "0") stays whole and leaves the rest to the other.
    left = len(now) if len(now) <= room // 2 else room - len(wanted) if len(wanted) <= room // 2 else room // 2
    return "%s %s %s" % (_ends(now, left), ARROW, _ends(wanted, room - left))


def _ends(text, width):
    """A value in ``width`` cells keeping its last word whole when it can: a
    list of numbers changes most visibly at its end."""
    if len(text) <= width:
        return text
    words = text.split()
    last = words[-1] if words else ""
    if 1 < len(words) and len(last) + 1 <= width:
        return text[:width - 1 - len(last)] + "…" + last
    return squeeze(text, width)


def cells(row, expanded, deselected, plan, widths=None):
    """[(text, style)] for each column of a row; ``widths``: the columns'
    widths, to fit the target and the values (else the table cuts their ends)."""
    widths = widths or (None,) * len(COLUMNS)
    if row.kind == "group":
        mark = "▼" if row.group in expanded else "▶"
        if row.group == FINDINGS:
            return [(mark, "group"), ("", ""), ("findings: %d" % row.count, "group"), ("", ""), ("", ""), ("", "")]
        # The count in the target column, the selection in the values column:
        # each fits its column at 80 columns. A filter shows "4 of 34".
        total = len(row.members)
        shown = "%d" % row.count if row.count == total else "%d of %d" % (row.count, total)
        label = "%s: %s change%s" % (row.group, shown, "" if total == 1 else "s")
        chosen = sum(1 for i in row.members if i not in deselected)
        return [(mark, "group"), ("", ""), (label, "group"), ("%d selected" % chosen, "group"), ("", ""), ("", "")]
    if row.kind == "finding":
        f = row.item
        return [(" ", ""), (SEVERITY_SHORT[f.severity], f.severity), (f.message, ""),
                (f.target, "dim"), ("", ""), ("", "")]
    c = row.item
    on = c.id not in deselected
    return [("✓" if on else "·", "selected" if on else "unselected"),
            (SCOPE_SHORT.get(c.scope, c.scope), c.scope),
            (target_text(c.target, widths[2]), ""),
            (values_text(c.current, c.desired, widths[3]), ""),
            (flags(c), "bold"),
            (RISK_SHORT.get(c.risk, c.risk), c.risk)]


def selected_changes(plan, deselected):
    return [c for c in plan.changes if c.id not in deselected]


def host_label(plan):
    """Who the plan is for: the host name, else the root's last component
    (stable across copies, unlike the full temporary path)."""
    host = plan.host if plan else {}
    if host.get("hostname"):
        return host["hostname"]
    root = host.get("root") or "/"
    return os.path.basename(root.rstrip("/")) or "/"


def summary(plan, deselected, filters):
    chosen = selected_changes(plan, deselected)
    reboot = sum(1 for c in chosen if c.reboot_required)
    restart = sum(1 for c in chosen if c.restart_required)
    text = "%d change%s, %d selected" % (len(plan.changes), "" if len(plan.changes) == 1 else "s", len(chosen))
    if reboot or restart:
        text += " (%s)" % ", ".join(p for p in ("%d reboot" % reboot if reboot else "",
                                               "%d restart" % restart if restart else "") if p)
    text += " · %d finding%s · %s" % (len(plan.findings), "" if len(plan.findings) == 1 else "s",
                                      filters.describe())
    return text


def next_area(plan, current):
    names = [None] + [g for g in groups(plan) if g != FINDINGS]
    i = names.index(current) if current in names else 0
    return names[(i + 1) % len(names)]


def next_severity(current):
    i = SEVERITIES.index(current)
    return SEVERITIES[(i + 1) % len(SEVERITIES)]
