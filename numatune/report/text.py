"""The report for a person: the status line, then every rule that needs
attention, grouped as the plan groups them: one entry per policy key and
why, the targets that share a current and desired value folded into one
line (``sdb-sdq queue/nr_requests: 128 -> 1024``) and the why said once,
then what is compliant. The JSON and the other formats keep one result per
rule."""
import io
import textwrap

from numatune.report.console import Style, clean
from numatune.report.grouped import ARROW, SEVERITY, elide, targets_text, value
from numatune.report.numbers import count

LABEL = SEVERITY


def summary(report):
    c = report.counts
    parts = ["%s critical" % count(c["critical"]), "%s warning" % count(c["warning"])]
    if c["waived"]:
        parts.append("%s waived" % count(c["waived"]))
    parts.append("%s compliant" % count(c["compliant"]))
    who = report.host.get("hostname") or report.host.get("root") or "?"
    # The policy's name and the host's name are text from files: escaped like every other.
    return "%s (policy %s on %s)" % (", ".join(parts), clean(report.policy or "?"), clean(who))


def status_line(report):
    return "numatune %s - %s" % (report.status_text, summary(report))


def _fill(text, first=10, rest=12):
    return textwrap.fill(clean(text), 79, initial_indent=" " * first, subsequent_indent=" " * rest,
                         break_on_hyphens=False)


def _label(r):
    return "WAIVED" if r.state == "waived" else LABEL[r.severity]


def _note(r):
    """What a drift's message adds after ``target: current -> desired`` (a
    waiver, "the next boot would not be"), or None for a message of its own."""
    if not r.target or r.state not in ("drift", "waived") or (r.current is None and r.desired is None):
        return None
    head = "%s: %s %s %s" % (r.target, value(r.current), ARROW, value(r.desired))
    return r.message[len(head):] if r.message.startswith(head) else None


def groups(results):
    """[(label, severity, key, why, [result, ...])]: results of one label,
    policy key and why, in report order (worst first)."""
    out, index = [], {}
    for r in results:
        why = "" if r.state == "waived" else r.why
        key = (_label(r), r.severity, r.policy_key or r.id, why)
        if key not in index:
            index[key] = len(out)
            out.append(key + ([],))
        out[index[key]][4].append(r)
    return out


def _members_lines(members):
    """Drifts that share current, desired and note on one folded line; any other message on its own.
    Several values one target still needs (the lines a udev rules file lacks) are counted on one
    line: elided to 30 characters they read as duplicates; the JSON lists each."""
    out, folded, order = [], {}, []
    per_target = {}
    for r in members:
        note = _note(r)
        if note is not None:
            per_target.setdefault((r.target, r.current, note), set()).add(r.desired)
    for r in members:
        note = _note(r)
        if note is None:
            order.append(r)
            continue
        many = len(per_target[(r.target, r.current, note)]) > 1
        sub = ("values", r.target, r.current, note) if many else (r.current, r.desired, note)
        if sub not in folded:
            folded[sub] = []
            order.append(sub)
        folded[sub].append(r)
    for item in order:
        if not isinstance(item, tuple):
            out.append(_fill(item.message))
            continue
        if len(item) == 4:
            _, target, current, note = item
            n = len({r.desired for r in folded[item]})
            out.append(_fill("%s: %s %s %d values (--format json lists each)%s"
                             % (target, elide(value(current), 30), ARROW, n, note)))
            continue
        current, desired, note = item
        targets = targets_text([r.target for r in folded[item]])
        change = "%s %s %s%s" % (elide(value(current), 30), ARROW, elide(value(desired), 30), note)
        out.append(_fill("%s: %s" % (targets, change)))
    return out


def render(report, plain=False):
    # Style() colours only on a terminal; a file gets none (a non-tty stream).
    s = Style(io.StringIO()) if plain else Style()
    out = [s("bold", status_line(report))]
    attention = [r for r in report.results if r.state != "compliant"]
    if attention:
        out.append("")
    said = {}
    for label, severity, key, why, members in groups(attention):
        if len(members) == 1:
            out.append("%s %s" % (s(severity, "%-9s" % label), elide(members[0].id, 69)))
        else:
            out.append("%s %s (%s rules)" % (s(severity, "%-9s" % label), elide(key, 55), count(len(members))))
        out += _members_lines(members)
        if why:
            # One why per rule: a why another key already gave is named, not repeated.
            text = "why: as for %s" % said[why] if why in said and said[why] != key else "why: " + why
            said.setdefault(why, key)
            out.append(s("dim", _fill(text, 10, 15)))
    compliant = [r for r in report.results if r.state == "compliant"]
    if compliant:
        out.append("")
        out.append(s("bold", "compliant (%s)" % count(len(compliant))))
        out.extend(_fill("ok  " + _persisted(r), 2, 6) for r in compliant)
    return "\n".join(out) + "\n"


def _persisted(result):
    """A rule about the next boot says what keeps it (the family names the
    mechanism: a sysctl.d file, a udev rule, the boot unit...); only those
    say "persisted"."""
    by = result.persisted_by
    if not by:
        return result.message
    return "%s, persisted by %s" % (result.message, by)


def render_error(message, now=None):
    # The message names host paths: a non-UTF-8 byte in one must not make the report unwritable.
    return "numatune UNKNOWN - %s\n" % clean(message)
