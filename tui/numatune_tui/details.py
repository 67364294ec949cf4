"""The details pane: for a change, why it is planned and where the policy
says so, the exact writes, the persistence file's unified diff, and which
other tuner (a sysctl.d file, tuned, another finding) would fight it."""
import difflib
import os
import re

from rich.text import Text

from numatune.apply import file as file_writes
from numatune.families.registry import FAMILIES
from numatune.policy.stack import shipped_dir
from numatune.policy.loader import key_lines

from numatune.report.grouped import ARROW

from .rows import SEVERITY_SHORT, STYLE, value_text

MAX_DIFF_LINES = 60


def write_text(write):
    """One line saying exactly what a write does to the host."""
    if write.kind == "value":
        return "write %r to %s" % (write.value, write.path)
    if write.kind == "file":
        args = " ".join("%s=%s" % (k, v) for k, v in sorted(write.args.items()))
        return "edit %s (%s%s)" % (write.path, write.editor, " " + args if args else "")
    if write.kind == "command":
        return "run %s" % " ".join(write.argv)
    # Kinds other areas add (SQL, netlink, cgroups): show what the plan holds.
    return "%s %s %s" % (write.kind, write.path, write.value or write.args or "")


def file_diff(root, write):
    """Unified diff of the file a ``file`` write edits, as it is now against
    what the editor makes of it (read-only: the pure editor on the current bytes)."""
    try:
        path = root.realpath(write.path)
        old, new = file_writes.edit(root, path, write.editor, write.args)
    except (OSError, KeyError, ValueError) as e:
        return ["(cannot preview %s: %s)" % (write.path, getattr(e, "strerror", None) or e)]
    decode = (lambda b: [] if b is None else b.decode("utf-8", "replace").splitlines(True))
    lines = list(difflib.unified_diff(decode(old), decode(new), fromfile="a" + path, tofile="b" + path))
    if not lines:
        return ["(no difference: %s already holds it)" % path]
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + ["... %d more line(s)\n" % (len(lines) - MAX_DIFF_LINES)]
    return [line.rstrip("\n") for line in lines]


def evidence(policy, rule):
    """``file:line: text`` of the policy line that sets a rule, or None when
    no line names it exactly (a default the family applies)."""
    if policy is None or not rule:
        return None
    key = re.sub(r"\[\d+\]", "", rule)  # key_lines drops array indices
    # The key itself, else its table when that is more than a top-level one.
    keys = [key] + ([key.rsplit(".", 1)[0]] if key.count(".") >= 2 else [])
    for path in reversed(policy.sources):
        text = policy.texts.get(path, "")
        lines = key_lines(text)
        number = next((lines[k] for k in keys if k in lines), None)
        if number:
            # Shipped policies by name: their install path says nothing.
            shown = os.path.basename(path) if os.path.dirname(path) == shipped_dir() else path
            return "%s:%d: %s" % (shown, number, text.splitlines()[number - 1].strip())
    return None


def rivals(change, plan, facts):
    """Who else sets what this change sets: the families' own rivals, then
    the findings about the same rule or target."""
    out = []
    for family in FAMILIES:
        out += family.rivals(change, plan, facts)
    for finding in plan.findings:
        if (change.rule and finding.rule == change.rule) or (finding.target and finding.target == change.target):
            out.append("%s: %s" % (SEVERITY_SHORT[finding.severity], finding.message))
    return out


def _section(text, title):
    text.append("\n%s\n" % title, style="bold underline")


def change_details(change, plan, facts, policy, root):
    t = Text()
    t.append(change.target + "\n", style="bold")
    t.append("%s %s " % (value_text(change.current), ARROW))
    t.append(value_text(change.desired), style="bold")
    t.append(" · %s · " % change.area)
    t.append(change.scope, style=STYLE.get(change.scope, ""))
    t.append(" · risk ")
    t.append(change.risk, style=STYLE.get(change.risk, ""))
    if change.reboot_required:
        t.append(" · needs a reboot", style="bold magenta")
    if change.restart_required:
        t.append(" · needs a restart", style="bold yellow")
    t.append("\n%s\n" % change.id, style="dim")
    _section(t, "why")
    t.append((change.why or "(the policy gives no why)") + "\n")
    where = evidence(policy, change.rule)
    if where:
        t.append("policy %s\n" % where, style="dim")
    _section(t, "writes")
    for write in change.writes:
        t.append(write_text(write) + "\n")
    for write in change.writes:
        if write.kind != "file":
            continue
        _section(t, "diff")
        for line in file_diff(root, write):
            style = ("green" if line.startswith("+") and not line.startswith("+++") else
                     "red" if line.startswith("-") and not line.startswith("---") else
                     "cyan" if line.startswith("@@") else "")
            t.append(line + "\n", style=style)
    fights = rivals(change, plan, facts)
    _section(t, "other tuners")
    if fights:
        for line in fights:
            t.append(line + "\n", style="yellow")
    else:
        t.append("none seen (sysctl.d files and findings checked)\n", style="dim")
    return t


def finding_details(finding, policy):
    t = Text()
    t.append(SEVERITY_SHORT[finding.severity] + " ", style=STYLE[finding.severity])
    t.append(finding.message + "\n")
    if finding.target:
        t.append("target: %s\n" % finding.target, style="dim")
    if finding.why:
        _section(t, "hint")
        t.append(finding.why + "\n")
    where = evidence(policy, finding.rule)
    if where:
        t.append("policy %s\n" % where, style="dim")
    t.append("%s\n" % finding.id, style="dim")
    t.append("\nfindings are reported, not applied", style="italic")
    return t


def group_details(name, count, plan):
    t = Text()
    t.append("%s\n" % name, style="bold")
    t.append("%d row(s) shown.\n\n" % count)
    t.append("space  select or deselect the whole group\nenter  expand or collapse\n", style="dim")
    return t
