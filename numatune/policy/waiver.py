"""``[[waiver]]``: a documented, dated exception to a policy rule.

    [[waiver]]
    rule = "sysctl.kernel.numa_balancing"   # a check id or policy key; globs allowed
    reason = "vendor support case 12345 asks for balancing on"
    expires = "2026-12-31"                  # or a TOML date: 2026-12-31

Waivers only change what ``numatune check`` reports (plan and apply ignore
them): a waived rule reports as waived, and past ``expires`` the waiver
stops counting, so the drift it covered shows up again.
"""
import datetime

from numatune.policy.schema import Scalar, SchemaError, Table, TableArray


def parse_date(value):
    """A waiver's ``expires`` as a date, or None if it is not YYYY-MM-DD."""
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(value) if len(value) == 10 else None
    except ValueError:
        return None


def _check_date(value):
    return None if parse_date(value) else "not a date: write expires = \"YYYY-MM-DD\""


class _Waiver(Table):
    """A waiver must say what it waives, why, and until when: one without an
    end date would silence a rule for ever."""
    REQUIRED = {
        "rule": 'rule = "sysctl.kernel.numa_balancing" (a check id or policy key from `numatune check`)',
        "reason": 'reason = "why the host may differ" (a ticket, a vendor case)',
        "expires": 'expires = "YYYY-MM-DD": waivers are temporary; pick a review date',
    }

    def validate(self, value, key, *rest):
        super().validate(value, key, *rest)
        for name, hint in self.REQUIRED.items():
            if name not in value:
                raise SchemaError(key, "%s needs %s" % (key, name), hint)
        if not value["rule"].strip():
            raise SchemaError(key + ".rule", "%s.rule is empty" % key, self.REQUIRED["rule"])


WAIVER = TableArray(_Waiver({
    "rule": Scalar(str),
    "reason": Scalar(str),
    "expires": Scalar(str, datetime.date, check=_check_date),
}))


def normalize(data):
    """TOML dates become "YYYY-MM-DD": a plan (which carries its policy) is JSON."""
    for waiver in data.get("waiver", []):
        waiver["expires"] = parse_date(waiver["expires"]).isoformat()
