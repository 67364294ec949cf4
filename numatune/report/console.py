"""Text output for an 80-column terminal. Colour only on a terminal and
never with NO_COLOR set."""
import os
import re
import sys
import textwrap

from numatune.facts.cpulist import format_cpulist
from numatune.families.registry import FAMILIES
from numatune.report import grouped
from numatune.report.fill import fill
from numatune.report.numbers import count
from numatune.report.grouped import clean, value  # noqa: F401 (clean: commands and text print with it)

COLORS = {"critical": "31;1", "warning": "33", "info": "36", "live": "32", "persistent": "34",
          "boot": "35", "dim": "2", "bold": "1", "high": "31", "medium": "33", "low": "0"}


class Style:
    def __init__(self, stream=None):
        stream = stream or sys.stdout
        self.on = stream.isatty() and not os.environ.get("NO_COLOR")

    def __call__(self, name, text):
        if not self.on or name not in COLORS:
            return text
        return "\033[%sm%s\033[0m" % (COLORS[name], text)


_ODD_SPACE = re.compile(r"[\t\n\r\x0b\x0c]")


def _wrap(text, indent):
    if (text and len(indent) + len(text) <= 79 and text == text.strip() and not _ODD_SPACE.search(text)):
        return indent + text  # most lines: textwrap costs ~25 us each, 33,000 changes on a giant host
    return fill(text, 79, indent, indent)


def header_lines(plan, s):
    h = plan.host
    # A long --root is cut in the middle: the JSON has it whole.
    out = [s("bold", "numatune plan for %s" % grouped.elide(h.get("hostname") or h.get("root") or "?", 61))]
    out += _wrap("%s, kernel %s, %s socket(s), %s NUMA node(s), %s CPUs"
                 % (h.get("distro") or "unknown distro", h.get("kernel") or "?", h.get("sockets") or "?",
                    h.get("nodes") or "?", count(h.get("cpus"))), "  ").splitlines()
    if plan.policy.get("policy", {}).get("name"):
        out.append("  policy: %s" % plan.policy["policy"]["name"])
    return out + [""]


def _verbose_lines(group, s):
    """Every change in full: today's form, each value whole (wrapped, not elided)."""
    out = []
    for c in group:
        fl = grouped.flags(c)
        if len(c.target) > 66:
            # Long paths get their own line so the value line stays readable at 80 columns.
            out.append("  %s" % s(c.scope, c.scope))
            out.append(_wrap(clean(c.target), "      "))
        else:
            out.append("  %s %s" % (s(c.scope, "%-10s" % c.scope), clean(c.target)))
        line = "%s -> %s%s" % (value(c.current), value(c.desired), ("   [" + ", ".join(fl) + "]") if fl else "")
        if len(line) + 6 <= 79:
            out.append("      %s -> %s%s" % (value(c.current), s("bold", value(c.desired)),
                                             ("   [" + ", ".join(fl) + "]") if fl else ""))
        else:
            out.append(_wrap(line, "      "))
        if c.why:
            out.append(s("dim", _wrap("why: " + clean(c.why), "      ")))
    return out


def finding_lines(f, s):
    """A finding wrapped at 80 columns, continuation under the message, with or without colour."""
    label = "%-8s" % grouped.SEVERITY.get(f.severity, f.severity.upper())
    text = fill(clean(f.message), 79, "  " + label + " ", " " * 11)
    lines = text.splitlines() or ["  " + label]
    lines[0] = "  " + s(f.severity, label) + lines[0][2 + len(label):]
    if f.why:
        lines.append(s("dim", _wrap("hint: " + clean(f.why), " " * 11)))
    return lines


def waiting_lines(changes, findings):
    """After apply: what waits for a reboot or a restart, counted, each named,
    so a reminder is not lost once the writes are done."""
    out = []
    for flag, when in (("reboot_required", "at the next reboot"), ("restart_required", "after a restart")):
        waiting = [c for c in changes if getattr(c, flag)]
        if waiting:
            out.append("%s change(s) take effect %s:" % (count(len(waiting)), when))
            out += ["  %s" % grouped.elide("%s (%s)" % (c.target, c.action), 77, middle=False) for c in waiting]
    pending = [f for f in findings if f.pending]
    if pending:
        out.append("%s pending until a reboot or restart (see the findings below)." % count(len(pending)))
    return out


def plan_text(plan, style=None, header=True, verbose=False):
    s = style or Style()
    out = header_lines(plan, s) if header else []
    areas, said = {}, {}
    for c in plan.changes:     # one pass: each area's changes in plan order
        group = areas.get(c.area)
        if group is None:
            areas[c.area] = [c]
        else:
            group.append(c)
    for area, group in areas.items():
        out.append(s("bold", "%s (%s change%s)" % (area, count(len(group)), "" if len(group) == 1 else "s")))
        out += _verbose_lines(group, s) if verbose else grouped.area_lines(group, s, _wrap, said)
        out.append("")
    if plan.findings:
        out.append(s("bold", "findings (%s)" % count(len(plan.findings))))
        for f in plan.findings:
            out += finding_lines(f, s)
        out.append("")
    out += textwrap.wrap(summary_line(plan), 79)
    return "\n".join(out)


def _n(n, word):
    return "%s %s%s" % (count(n), word, "" if n == 1 else "s")


def unmet(plan):
    """Findings that say the host does not match yet: warnings, criticals and
    anything waiting for a reboot or restart."""
    return [f for f in plan.findings if f.severity != "info" or f.pending]


def summary_line(plan):
    """One line; "the host matches the policy" only when nothing is unmet."""
    n = len(plan.changes)
    reboot = restart = 0
    for c in plan.changes:      # one pass over a giant host's 33,000 changes, not one per flag
        if c.reboot_required:
            reboot += 1
        if c.restart_required:
            restart += 1
    crit = sum(1 for f in plan.findings if f.severity == "critical")
    pending = sum(1 for f in plan.findings if f.pending)
    waits = ["%s need%s a reboot" % (count(reboot), "s" if reboot == 1 else ""),
             "%s need%s a restart" % (count(restart), "s" if restart == 1 else "")]
    waits = [w for w, k in zip(waits, (reboot, restart)) if k]
    parts = [_n(n, "change") + (" (%s)" % ", ".join(waits) if waits else "")]
    notes = [x for x, k in (("%s critical" % count(crit), crit), ("%s pending" % count(pending), pending)) if k]
    parts.append(_n(len(plan.findings), "finding") + (" (%s)" % ", ".join(notes) if notes else ""))
    parts.append("%s already compliant" % _n(len(plan.compliant), "rule"))
    if not n:
        parts[0] = "no changes: the host matches the policy" if not unmet(plan) else \
            "no changes, but the host does not match the policy yet"
    return ", ".join(parts) + "."


def _thp(thp):
    """enabled and defrag, and where: RHEL 6 keeps both under redhat_transparent_hugepage."""
    where = thp["path"].rsplit("/", 1)[0]
    return "%s, defrag %s%s" % (thp["enabled"], thp.get("defrag") or "not read",
                                "" if where == "/sys/kernel/mm/transparent_hugepage" else " (%s)" % where)


def facts_text(facts):
    host, topo = facts["host"], facts["topology"]
    sm = topo["summary"]
    cmdline = " ".join(host["cmdline"]) if host["cmdline"] is not None else "(not readable)"
    memory = topo["nodes_with_memory"]
    out = [grouped.elide("host:      %s (%s)" % (host["hostname"] or facts["root"],
                                               host["distro"]["name"] or "unknown distro"), 79),
           "kernel:    %s" % (host["release"] or "?")]
    # Broken at spaces only: one argument stays whole, however long.
    out += textwrap.wrap(clean(cmdline), 79, initial_indent="cmdline:   ", subsequent_indent=" " * 11,
                         break_long_words=False, break_on_hyphens=False)
    out += ["CPUs:      %s online, %s socket(s), %s core(s), %s thread(s) per core"
            % (count(sm["cpus_online"]), sm["sockets"] or "?", count(sm["cores"] or "?"),
               sm["threads_per_core"] or "?"),
            "NUMA:      %s node(s), memory on %s" % (sm["nodes"], _nodelist(memory))]
    thp = host["thp"]
    out.append("THP:       %s" % (_thp(thp) if thp else "not available"))
    nodes = topo["nodes"]
    if nodes:
        ids = sorted(nodes, key=int)
        out.append("")
        out.append("node  cpus                          memory MiB    free MiB")
        for nid in ids:
            n = nodes[nid]
            cpus = grouped.elide(format_cpulist(n["cpus"]) or "-", 28, middle=False)
            out.append("%4s  %-28s %11s %11s" % (nid, cpus, _mib(n["mem_total_kb"]), _mib(n["mem_free_kb"])))
        if any(n["distance"] for n in nodes.values()):
            out.append("")
            out += _distance_lines(ids, nodes)
    for family in FAMILIES:
        lines = list(family.facts_lines(facts))
        if lines:
            out += [""] + lines
    return "\n".join(out)


def _nodelist(ids):
    try:
        return format_cpulist(sorted(int(i) for i in ids)) or "-"
    except ValueError:  # not numbers: shown as read
        return ",".join(ids) or "-"


def _mib(kb):
    return "-" if kb is None else count(kb // 1024)


def _distance_lines(ids, nodes):
    """The SLIT table; columns as narrow as the values allow, so 16 nodes fit
    80 columns; a host with more gets one wrapped row per node."""
    cell = max(len(str(v)) for nid in ids for v in list(nodes[nid]["distance"].values()) + [nid]) + 1
    if 5 + cell * len(ids) <= 79:
        out = ["node distances:", "node " + "".join("%*s" % (cell, i) for i in ids)]
        return out + ["%4s " % nid + "".join("%*s" % (cell, nodes[nid]["distance"].get(j, "-")) for j in ids)
                      for nid in ids]
    out = ["node distances (row: from that node to nodes %s, in order):" % format_cpulist([int(i) for i in ids])]
    for nid in ids:
        row = " ".join(str(nodes[nid]["distance"].get(j, "-")) for j in ids)
        out += textwrap.wrap(row, 79, initial_indent="%4s: " % nid, subsequent_indent=" " * 6)
    return out


def history_text(transactions, audits=None):
    """The journal's transactions, newest first, as the review screen lists them.
    ``audits``: {txid: what numatune.apply.audit.of says, with "auto_reverted"}:
    a second line each, who ran what with which policy on which host."""
    if not transactions:
        return "no transactions in the journal"
    # Within 80 columns, and never a txid cut (one to copy): a txid is at most 30 characters (a 7-digit
    # pid), the time is shown to the second as the review screen shows it (`history TXID` gives its zone),
    # the longest state is 18 ("interrupted revert").
    row = "%-30s %-19s %-18s %s"
    out = [row % ("transaction", "time", "state", "changes")]
    for tx in newest_first(transactions):
        audit = (audits or {}).get(tx.txid)
        state = "auto-reverted" if audit and audit.get("auto_reverted") else tx.state
        out.append(row % (tx.txid, value(tx.time)[:19].replace("T", " "), state, count(tx.change_count)))
        if audit:
            lines = textwrap.wrap(audit_line(audit), 79, initial_indent="  ", subsequent_indent="    ",
                                  break_long_words=False, break_on_hyphens=False)
            if len(lines) > 2:
                # A long command line: its start says what it was (`history TXID` has it whole).
                lines = [lines[0], "    " + grouped.elide(" ".join(x.strip() for x in lines[1:]), 75, middle=False)]
            out += lines
    return "\n".join(out)


def audit_line(audit):
    """``alice on db07, policy NAME (sha256 0123456789ab): numatune apply ...``; a boot replay says so.
    The command line last: on a long one, the end is what the line cuts."""
    policy = audit["policy"]
    hashed = " (sha256 %s)" % policy["sha256"][:12] if policy["sha256"] else ""
    who = "%s on %s, policy %s%s" % (audit["user"] or "?", audit["host"] or "?", policy["name"] or "(unnamed)",
                                     hashed)
    if audit["kind"] == "boot replay":
        return clean("boot replay: " + who)
    return clean("%s: %s" % (who, audit["command_line"] or audit["kind"] or "?"))


def newest_first(transactions):
    """The one history order (`numatune history`, the review screen): newest first, like `dnf history`.
    Transaction ids start with their UTC time, so their order is the journal's."""
    return sorted(transactions, key=lambda tx: tx.txid, reverse=True)


def change_counts(changes, writes, planned=False):
    """``3 change(s), 5 write(s)``: how apply's prompt (``planned``), its result and revert count a transaction."""
    return "%s change(s), %s %swrite(s)" % (count(changes), count(writes), "planned " if planned else "")


def unjournaled_line(planned, journaled, written=None):
    """Why apply's result counts fewer writes than its prompt did, or None: a write that found its
    target already as wanted (a file an earlier write of the run rewrote) is not journaled, and the
    edits of one file are made as one write (``journaled``: the planned writes made, ``written``: the
    writes they took, when fewer)."""
    out = []
    if planned > journaled:
        out.append("%s of the %s planned write(s) found their target already as wanted (not journaled)" % (
            count(planned - journaled), count(planned)))
    if written is not None and written < journaled:
        out.append("%s planned write(s) made as %s: the edits of one file are written, and journaled, once" % (
            count(journaled), count(written)))
    return "; ".join(out) or None


def revert_summary(tx, restored, skipped, failed):
    """One line for a revert, counted in the writes its apply counted: what was put back, left
    alone, failed, and (when some were) the writes already as before (undone earlier, or put
    back by hand). A journal line that could not be written counts as a failure."""
    writes = len(tx.ops)
    already = max(writes - len(restored) - len(skipped) - len(failed), 0)
    # "transaction TXID:" first, as apply's result line: scripts read the txid from it.
    return "transaction %s: %s: %s restored, %s left alone, %s failed%s." % (
        tx.txid, change_counts(tx.change_count, writes), count(len(restored)), count(len(skipped)),
        count(len(failed)), ", %s already as before" % count(already) if already else "")
