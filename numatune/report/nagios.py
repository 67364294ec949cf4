"""One Nagios/Icinga status line with performance data, per the plugin
guidelines: ``SERVICE STATUS - text | 'label'=value;warn;crit;min;max ...``.
The exit code (0/1/2/3) carries the state; the text names the worst rules."""
from numatune.report.grouped import clean
from numatune.report.text import summary

SHOWN = 3  # rules named in the line; the rest are counted


def _text(message):
    # '|' starts perfdata and a newline ends the status line: neither may leak from a message, nor
    # any other control character from the host (an ESC would reach the operator's terminal or web page).
    return clean(message.replace("|", "/").replace("\n", " "))


def _ranges(report):
    """-w/-c as given (the ranges over the drift count), else none."""
    limits = report.thresholds
    return (limits.spec("warning"), limits.spec("critical")) if limits else ("", "")


def render(report):
    c = report.counts
    worst = [r for r in report.drift][:SHOWN]
    text = summary(report)
    if worst:
        more = len(report.drift) - len(worst)
        text += ": " + "; ".join(r.message for r in worst) + ("; and %d more" % more if more else "")
    # Thresholds are ranges (plugin guidelines): "0" alerts outside 0..0, i.e. from 1 up. A critical
    # count of 1 is CRITICAL, a warning count of 1 is WARNING.
    # With -w/-c the drift count's ranges decide; the severity counts then carry none of their own.
    severe = ("", "0", "0", "") if report.thresholds is None else ("", "", "", "")
    perf = [("critical", c["critical"]) + severe[:2], ("warning", c["warning"]) + severe[2:],
            ("waived", c["waived"], "", ""), ("compliant", c["compliant"], "", ""),
            ("drift", len(report.drift), *_ranges(report))]
    perfdata = " ".join("%s=%d;%s;%s;0" % (label, value, warn, crit) for label, value, warn, crit in perf)
    return "NUMATUNE %s - %s | %s\n" % (report.status_text, _text(text), perfdata)


def render_error(message, now=None):
    return "NUMATUNE UNKNOWN - %s\n" % _text(message)
