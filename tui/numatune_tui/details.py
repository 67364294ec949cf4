"""The details pane: for a change, why it is planned and where the policy
says so, the exact writes, the persistence file's unified diff, and which
other tuner (a sysctl.d file, tuned, another finding) would fight it."""
from rich.text import Text

from numatune import engine
from numatune.errors import NumatuneError

from numatune.report.grouped import ARROW

from .rows import SEVERITY_SHORT, STYLE, value_text

MAX_DIFF_LINES = 60
# Starts each continuation of a wrapped diff line, after its +/-: not a line of its own.
CONTINUED = "↪ "


def file_diff(root, change):
    """The engine's unified diff of the files ``change`` edits (`plan --diff`
    of this one change), cut to what a pane shows."""
    try:
        lines = engine.diff_text(root, [change]).splitlines()
    except (NumatuneError, OSError, KeyError, ValueError) as e:
        return ["(cannot preview: %s)" % (getattr(e, "strerror", None) or e)]
    if len(lines) > MAX_DIFF_LINES:
        more = len(lines) - MAX_DIFF_LINES
        lines = lines[:MAX_DIFF_LINES] + ["... %d more line(s): numatune plan --diff" % more]
    return lines


def _section(text, title):
    text.append("\n%s\n" % title, style="bold underline")


def diff_rows(lines, width=None):
    """(text, style) per screen line: a diff line longer than ``width`` goes
    on over several lines, broken at a space or after a comma (a word is cut
    only when it alone is wider than the pane), each continuation starting
    with its line's ``+``/``-``/`` `` and CONTINUED, so it reads neither as
    context nor as a line of its own."""
    out = []
    for line in lines:
        header = line.startswith(("+++", "---", "@@"))
        style = ("cyan" if line.startswith("@@") else "" if header else
                 "green" if line.startswith("+") else "red" if line.startswith("-") else "")
        marker = "" if header or line[:1] not in ("+", "-", " ") else line[:1]
        room = (width or 0) - len(marker) - len(CONTINUED)
        if width is None or room < 8 or len(line) <= width:
            out.append((line, style))
            continue
        pieces = _pieces(line[len(marker):], room + len(CONTINUED), room)
        out.append((marker + pieces[0], style))
        out += [(marker + CONTINUED + piece, style) for piece in pieces[1:]]
    return out


def _pieces(text, first, rest):
    """``text`` in pieces of at most ``first``, then ``rest`` cells, each ending
    before a space or after a comma where one falls in its second half."""
    out = []
    while text:
        room = rest if out else first
        if len(text) <= room:
            out.append(text)
            break
        cut = max(text.rfind(" ", 0, room + 1), text.rfind(",", 0, room) + 1)
        if cut <= room // 2:
            cut = room          # one word wider than the pane: cut it
        out.append(text[:cut].rstrip(" ") or text[:room])
        text = text[cut:].lstrip(" ") if text[:cut].strip() else text[room:]
    return out


def change_details(change, plan, facts, policy, root, width=None):
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
    where = engine.policy_line(policy, change.rule)
    if where:
        t.append("policy %s\n" % where, style="dim")
    _section(t, "writes")
    for write in change.writes:
        t.append(engine.describe_write(write) + "\n")
    if any(write.kind == "file" for write in change.writes):
        _section(t, "diff")
        for line, style in diff_rows(file_diff(root, change), width):
            t.append(line + "\n", style=style)
    fights = engine.rivals(change, plan, facts)
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
    where = engine.policy_line(policy, finding.rule)
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
