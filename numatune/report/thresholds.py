"""``check -w RANGE -c RANGE``: the Nagios plugin guidelines' thresholds over
the drift count (rules that drift or wait for a reboot, waived ones excluded).

Ranges are read by nagiosplugin's ``Range`` (``10`` alerts above 10, ``5:``
below 5, ``~:10``, ``@10:20`` inside 10..20), the library Nagios plugins in
Python share, rather than a parser of our own. It is the ``nagios`` extra:
imported only when a threshold is given, so a host that only writes the
Prometheus file does not need it.

With a threshold, the count decides the status (CRITICAL outside ``-c``,
else WARNING outside ``-w``, else OK) instead of the worst rule's severity:
that is what a Nagios admin who sets them asks for.
"""
from __future__ import annotations

from numatune.errors import UsageError
from numatune.model.records import record


@record(frozen=True)
class Thresholds:
    warning: object = None   # nagiosplugin.Range, or None when not given
    critical: object = None

    def status(self, drift):
        if self.critical is not None and not self.critical.match(drift):
            return 2
        if self.warning is not None and not self.warning.match(drift):
            return 1
        return 0

    def spec(self, which):
        """The range as the perfdata writes it ("" when not given)."""
        value = getattr(self, which)
        return "" if value is None else str(value)


def parse(warning=None, critical=None):
    """``Thresholds`` from the flags' text, or None when neither is given; a bad range is one line."""
    if warning is None and critical is None:
        return None
    from nagiosplugin import Range
    ranges = {}
    for flag, text in (("-w/--warning", warning), ("-c/--critical", critical)):
        if text is None:
            continue
        try:
            ranges[flag] = Range(text) if text.strip() else None
        except ValueError as e:
            raise UsageError("%s %r is not a Nagios range: %s" % (flag, text, e),
                             "e.g. -w 10 (alert above 10), -c 5: (below 5), -c @1:3 (inside 1..3)") from None
    return Thresholds(ranges.get("-w/--warning"), ranges.get("-c/--critical"))
