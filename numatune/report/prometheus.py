"""node_exporter's textfile collector format, written by prometheus_client
(a registry, ``generate_latest`` for stdout, ``write_to_textfile`` for
``--out``, which writes a temporary file and renames it).

``numatune_rule_compliant{rule,area,target}`` is 1 for a compliant rule and
0 for one that drifts, waits for a reboot or is waived; ``rule`` is the
check id (stable whether or not it drifts, one series per id: the report
merges results that share one) and ``target`` what it is about. Waived rules
are also ``numatune_rule_waived`` 1, so an alert can be
``numatune_rule_compliant == 0 unless numatune_rule_waived == 1``.

Counts are gauges, so they carry no ``_total`` (a counter's suffix):
``numatune_drift_rules``, ``numatune_waived_rules``.

On UNKNOWN (the check could not run) no rule series are written (stale ones
would claim a compliance nobody checked), but
``numatune_last_check_timestamp_seconds`` keeps the value of the last
successful check, read from the file being replaced, so an alert on its age
fires while checks keep failing.
"""
import os
import time

from numatune import __version__

LAST_CHECK = "numatune_last_check_timestamp_seconds"


def _registry():
    from prometheus_client import CollectorRegistry
    return CollectorRegistry(auto_describe=True)


def _gauge(registry, name, help_text, labels=()):
    from prometheus_client import Gauge
    return Gauge(name, help_text, labelnames=labels, registry=registry)


def _text(registry):
    from prometheus_client import generate_latest
    return generate_latest(registry).decode("utf-8")


def render(report):
    registry = _registry()
    rules = [r for r in report.results if r.state != "info"]
    names = ("rule", "area", "target")
    compliant = _gauge(registry, "numatune_rule_compliant",
                       "1 if the host follows this policy rule, 0 if it drifts, waits for a reboot or is waived.",
                       names)
    waived = _gauge(registry, "numatune_rule_waived", "1 if a valid [[waiver]] covers this rule's drift.", names)
    severity = _gauge(registry, "numatune_rule_severity", "0 ok or waived, 1 warning, 2 critical (the Nagios scale).",
                      names)
    for r in rules:
        # target is the id's subject, not Change.target: the series must not change name when the rule flips.
        labels = (r.id, r.area, r.subject)
        compliant.labels(*labels).set(1 if r.state == "compliant" else 0)
        waived.labels(*labels).set(1 if r.state == "waived" else 0)
        severity.labels(*labels).set({"warning": 1, "critical": 2}.get(r.severity, 0))
    _gauge(registry, "numatune_drift_rules", "Rules that drift or wait for a reboot, waived ones excluded.").set(
        len(report.drift))
    _gauge(registry, "numatune_waived_rules", "Rules whose drift a valid waiver covers.").set(report.counts["waived"])
    _gauge(registry, "numatune_check_status", "0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (could not check).").set(
        report.status)
    _gauge(registry, LAST_CHECK, "When the last successful check ran.").set(round(report.checked_at.timestamp(), 3))
    _gauge(registry, "numatune_info", "The numatune version and policy of the last check.",
           ("version", "policy", "hostname")).labels(
        __version__, report.policy or "", report.host.get("hostname") or "").set(1)
    return _text(registry)


def last_check(path):
    """The last successful check's timestamp in an earlier report file, or None."""
    from prometheus_client.parser import text_string_to_metric_families
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == LAST_CHECK:
                    return sample.value
    except (OSError, ValueError, UnicodeDecodeError):
        pass  # no earlier file, or not one of ours: nothing to carry over
    return None


def render_error(message, now=None, previous=None):
    """``previous``: the file this report replaces, whose last successful check is kept."""
    registry = _registry()
    _gauge(registry, "numatune_check_status", "0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (could not check).").set(3)
    _gauge(registry, "numatune_last_error_timestamp_seconds", "When the last check failed to run.").set(
        round(now.timestamp() if now else time.time(), 3))
    last = last_check(previous) if previous else None
    if last is not None:
        _gauge(registry, LAST_CHECK, "When the last successful check ran.").set(last)
    return _text(registry)


def write_file(path, text):
    """``write_to_textfile``: a temporary file beside ``path``, then a rename. The text is parsed back
    into the registry it is written from, so a file node_exporter would reject is never written."""
    from prometheus_client import write_to_textfile
    from prometheus_client.parser import text_string_to_metric_families
    families = list(text_string_to_metric_families(text))

    class Parsed:
        def collect(self):
            return families
    registry = _registry()
    registry.register(Parsed())
    write_to_textfile(os.fspath(path), registry)
    # node_exporter runs as another user and must read it, whatever the umask.
    os.chmod(path, 0o644)
