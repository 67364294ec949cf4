"""node_exporter's textfile collector format (Prometheus text exposition 0.0.4).

``numatune_rule_compliant{rule,area,target}`` is 1 for a compliant rule and
0 for one that drifts, waits for a reboot or is waived; ``rule`` is the
check id (stable whether or not it drifts) and ``target`` what it is about.
Waived rules are also ``numatune_rule_waived`` 1, so an alert can be
``numatune_rule_compliant == 0 unless numatune_rule_waived == 1``.
"""
import time

from numatune import __version__


def _label(value):
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(**labels):
    return "{%s}" % ",".join('%s="%s"' % (k, _label(v)) for k, v in labels.items())


def _metric(out, name, kind, help_text, samples):
    out.append("# HELP %s %s" % (name, help_text))
    out.append("# TYPE %s %s" % (name, kind))
    for labels, value in samples:
        out.append("%s%s %s" % (name, _labels(**labels) if labels else "", _number(value)))


def _number(value):
    return repr(float(value)) if isinstance(value, float) else str(value)


def render(report):
    rules = [r for r in report.results if r.state != "info"]
    # target is the id's subject, not Change.target: the series must not change name when the rule flips.
    labels = [dict(rule=r.id, area=r.area, target=r.subject) for r in rules]
    out = []
    _metric(out, "numatune_rule_compliant", "gauge",
            "1 if the host follows this policy rule, 0 if it drifts, waits for a reboot or is waived.",
            [(lab, 1 if r.state == "compliant" else 0) for lab, r in zip(labels, rules)])
    _metric(out, "numatune_rule_waived", "gauge", "1 if a valid [[waiver]] covers this rule's drift.",
            [(lab, 1 if r.state == "waived" else 0) for lab, r in zip(labels, rules)])
    _metric(out, "numatune_rule_severity", "gauge",
            "0 ok or waived, 1 warning, 2 critical (the Nagios scale).",
            [(lab, {"warning": 1, "critical": 2}.get(r.severity, 0)) for lab, r in zip(labels, rules)])
    _metric(out, "numatune_drift_total", "gauge", "Rules that drift or wait for a reboot, waived ones excluded.",
            [({}, len(report.drift))])
    _metric(out, "numatune_waived_total", "gauge", "Rules whose drift a valid waiver covers.",
            [({}, report.counts["waived"])])
    _status(out, report.status)
    _metric(out, "numatune_last_check_timestamp_seconds", "gauge", "When the last successful check ran.",
            [({}, round(report.checked_at.timestamp(), 3))])
    _metric(out, "numatune_info", "gauge", "The numatune version and policy of the last check.",
            [(dict(version=__version__, policy=report.policy or "",
                   hostname=report.host.get("hostname") or ""), 1)])
    return "\n".join(out) + "\n"


def _status(out, status):
    _metric(out, "numatune_check_status", "gauge", "0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (could not check).",
            [({}, status)])


def render_error(message, now=None):
    # No rule metrics: stale ones would claim a compliance nobody checked.
    out = []
    _status(out, 3)
    _metric(out, "numatune_last_error_timestamp_seconds", "gauge", "When the last check failed to run.",
            [({}, round(now.timestamp() if now else time.time(), 3))])
    return "\n".join(out) + "\n"
