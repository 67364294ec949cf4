"""node_exporter's textfile collector format, written by prometheus_client
(``GaugeMetricFamily`` samples in a collector, ``generate_latest`` for stdout,
``write_to_textfile`` for ``--out``, which writes a temporary file and renames it).

Sized for a fleet: a host with 4,096 SCSI paths has 34,000 rule results, and
one series each is 34 million series for a thousand hosts. So:

- ``numatune_rule_targets{check,area,state}``: one series per policy rule
  (``check``, a result id's kind: the part before the first ``:``, e.g.
  ``block.live``) and area and state (``compliant``, ``drift``, ``pending``,
  ``waived``): how many targets are in that state. Every state is written,
  zeros too, so ``state="drift"`` going to 0 is a value, not a vanished series.
  ``numatune_rule_worst_severity{check,area}`` is the worst of them (0 ok or
  waived, 1 warning, 2 critical).
- ``numatune_rule_compliant``, ``numatune_rule_waived``,
  ``numatune_rule_severity`` ``{rule,area,target}`` only for the rules that
  are not compliant (drift, pending, waived), worst first and every rule's
  first target before any rule's second, at most ``TARGET_SERIES_LIMIT`` of them (``numatune_target_series_limit``); the
  rest are counted in ``numatune_target_series_omitted``. ``rule`` is the
  check id (stable whether or not it drifts), ``target`` what it is about,
  so an alert can be ``numatune_rule_compliant == 0 unless numatune_rule_waived == 1``.
- A label whose value would be empty is left out (``target=""``,
  ``hostname=""`` on an offline root): Prometheus reads both the same, and
  the file stays what a person expects to read.
- Label values from the host are ``clean``ed: control characters become
  visible ``\\xNN`` escapes (as in the text format), bytes that are not UTF-8 too.

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
from numatune.report.grouped import clean

LAST_CHECK = "numatune_last_check_timestamp_seconds"
# Per-target series (3 each) for at most this many non-compliant rules: 600 series, with the per-rule
# counts a giant host's file stays far under a scrape's usual sample_limit.
TARGET_SERIES_LIMIT = 200
STATES = ("compliant", "drift", "pending", "waived")
SEVERITY = {"warning": 1, "critical": 2}
STATUS_HELP = "0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (could not check)."


def check_of(rule_id):
    """The policy rule a result belongs to: its id's kind (``block.live`` of ``block.live:sdb/nr_requests``)."""
    return rule_id.partition(":")[0]


class _Families:
    """The families of one report, collected in the order they were added (a prometheus_client collector)."""

    def __init__(self):
        self.families = []

    def gauge(self, name, help_text):
        from prometheus_client.core import GaugeMetricFamily
        family = GaugeMetricFamily(name, help_text)
        self.families.append(family)
        return family

    def collect(self):
        return self.families


def _add(family, value, **labels):
    # No empty label: Prometheus reads `target=""` as no target, and so does the file now.
    family.add_sample(family.name, {k: clean(v) for k, v in labels.items() if v}, value)


def _text(families):
    from prometheus_client import CollectorRegistry, generate_latest
    registry = CollectorRegistry(auto_describe=False)
    registry.register(families)
    return generate_latest(registry).decode("utf-8")


def _spread(results):
    """Worst first, and within a severity each rule's first target before any rule's second: 3,620 IRQs
    of one rule must not take every place under the limit from the one Oracle finding after them."""
    seen = {}
    keyed = []
    for i, r in enumerate(results):
        check = check_of(r.id)
        seen[check] = nth = seen.get(check, -1) + 1
        keyed.append((-SEVERITY.get(r.severity, 0), nth, i, r))
    return [k[-1] for k in sorted(keyed, key=lambda k: k[:3])]


def render(report, limit=TARGET_SERIES_LIMIT):
    out = _Families()
    rules = [r for r in report.results if r.state != "info"]
    counts, worst = {}, {}
    for r in rules:
        key = (check_of(r.id), r.area)
        counts.setdefault(key, dict.fromkeys(STATES, 0))[r.state] += 1
        worst[key] = max(worst.get(key, 0), SEVERITY.get(r.severity, 0))
    targets = out.gauge("numatune_rule_targets", "Targets of this policy rule (check) in this state.")
    severity_of_rule = out.gauge("numatune_rule_worst_severity",
                                 "The worst severity among this policy rule's targets: 0 ok or waived, 1 warning, "
                                 "2 critical.")
    for (check, area), states in counts.items():
        for state, n in states.items():
            _add(targets, n, check=check, area=area, state=state)
        _add(severity_of_rule, worst[(check, area)], check=check, area=area)

    compliant = out.gauge("numatune_rule_compliant",
                          "0: the host does not follow this rule (drift, waiting for a reboot, or waived); "
                          "written only for such rules.")
    waived = out.gauge("numatune_rule_waived", "1 if a valid [[waiver]] covers this rule's drift.")
    severity = out.gauge("numatune_rule_severity", "0 ok or waived, 1 warning, 2 critical (the Nagios scale).")
    off = [r for r in rules if r.state != "compliant"]
    for r in _spread(off)[:limit]:
        # target is the id's subject, not Change.target: the series must not change name when the rule flips.
        labels = dict(rule=r.id, area=r.area, target=r.subject)
        _add(compliant, 0, **labels)
        _add(waived, 1 if r.state == "waived" else 0, **labels)
        _add(severity, SEVERITY.get(r.severity, 0), **labels)
    _add(out.gauge("numatune_target_series_limit", "At most this many rules get the per-target series."), limit)
    _add(out.gauge("numatune_target_series_omitted",
                   "Rules not compliant beyond the limit: counted in numatune_rule_targets, without series "
                   "of their own."), max(0, len(off) - limit))
    _add(out.gauge("numatune_drift_rules", "Rules that drift or wait for a reboot, waived ones excluded."),
         len(report.drift))
    _add(out.gauge("numatune_waived_rules", "Rules whose drift a valid waiver covers."), report.counts["waived"])
    _add(out.gauge("numatune_check_status", STATUS_HELP), report.status)
    _add(out.gauge(LAST_CHECK, "When the last successful check ran."), round(report.checked_at.timestamp(), 3))
    _add(out.gauge("numatune_info", "The numatune version and policy of the last check."), 1,
         version=__version__, policy=report.policy, hostname=report.host.get("hostname"))
    return _text(out)


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
    out = _Families()
    _add(out.gauge("numatune_check_status", STATUS_HELP), 3)
    _add(out.gauge("numatune_last_error_timestamp_seconds", "When the last check failed to run."),
         round(now.timestamp() if now else time.time(), 3))
    last = last_check(previous) if previous else None
    if last is not None:
        _add(out.gauge(LAST_CHECK, "When the last successful check ran."), last)
    return _text(out)


def write_file(path, text):
    """``write_to_textfile``: a temporary file beside ``path``, then a rename. The text is parsed back
    into the registry it is written from, so a file node_exporter would reject is never written."""
    from prometheus_client import CollectorRegistry, write_to_textfile
    from prometheus_client.parser import text_string_to_metric_families
    parsed = _Families()
    parsed.families = list(text_string_to_metric_families(text))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(parsed)
    write_to_textfile(os.fspath(path), registry)
    # node_exporter runs as another user and must read it, whatever the umask.
    os.chmod(path, 0o644)
