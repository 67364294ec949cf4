"""The report for a person: the status line, then every rule that needs
attention with its current and desired value, then what is compliant."""
import io
import textwrap

from numatune.report.console import Style, clean
from numatune.report.grouped import SEVERITY
from numatune.report.numbers import count

LABEL = SEVERITY


def summary(report):
    c = report.counts
    parts = ["%s critical" % count(c["critical"]), "%s warning" % count(c["warning"])]
    if c["waived"]:
        parts.append("%s waived" % count(c["waived"]))
    parts.append("%s compliant" % count(c["compliant"]))
    who = report.host.get("hostname") or report.host.get("root") or "?"
    return "%s (policy %s on %s)" % (", ".join(parts), report.policy or "?", who)


def status_line(report):
    return "numatune %s - %s" % (report.status_text, summary(report))


def render(report, plain=False):
    # Style() colours only on a terminal; a file gets none (a non-tty stream).
    s = Style(io.StringIO()) if plain else Style()
    out = [s("bold", status_line(report))]
    attention = [r for r in report.results if r.state != "compliant"]
    if attention:
        out.append("")
    for r in attention:
        label = "WAIVED" if r.state == "waived" else LABEL[r.severity]
        out.append("%s %s" % (s(r.severity, "%-9s" % label), clean(r.id)))
        out.append(textwrap.fill(clean(r.message), 79, initial_indent=" " * 10, subsequent_indent=" " * 12))
        if r.why and r.state != "waived":
            out.append(s("dim", textwrap.fill("why: " + clean(r.why), 79, initial_indent=" " * 10,
                                              subsequent_indent=" " * 15)))
    compliant = [r for r in report.results if r.state == "compliant"]
    if compliant:
        out.append("")
        out.append(s("bold", "compliant (%s)" % count(len(compliant))))
        out.extend("  ok  %s" % clean(r.message) for r in compliant)
    return "\n".join(out) + "\n"


def render_error(message, now=None):
    return "numatune UNKNOWN - %s\n" % message
