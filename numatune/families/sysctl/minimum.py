"""The "at least" form of a sysctl rule: ``{ at_least = 1048576 }`` or, for
the multi-field values (``net.ipv4.tcp_rmem``: min, default, max), one minimum
per field. tuned's ``>N`` in the same spirit: a host value already higher is
kept, so a policy never makes a host worse than it is. Pure functions only.
"""
import re

_FIELDS = re.compile(r"^-?\d+( -?\d+)*$")


def spec_of(spec):
    """(kind, value, why) of a [sysctl] entry: kind "value" or "at_least";
    value whitespace-normalised text."""
    if isinstance(spec, dict):
        if "at_least" in spec:
            return "at_least", _norm(spec["at_least"]), spec.get("why", "")
        return "value", _norm(spec.get("value")), spec.get("why", "")
    return "value", _norm(spec), ""


def _norm(value):
    return " ".join(str(value).split()) if value is not None else None


def problem(minimum):
    """Why ``minimum`` is not a valid at_least value, or None."""
    if not _FIELDS.match(_norm(minimum) or ""):
        return "at_least takes an integer or integers separated by spaces (\"4096 87380 16777216\")"
    return None


def fields(text):
    """[int, ...] of a value made of integers, or None."""
    text = _norm(text)
    if text is None or not _FIELDS.match(text):
        return None
    return [int(f) for f in text.split()]


def meets(have, minimum):
    """True when every field of ``have`` is >= the same field of ``minimum``;
    None when they cannot be compared (not numbers, another number of fields)."""
    got, low = fields(have), fields(minimum)
    if got is None or low is None or len(got) != len(low):
        return None
    return all(g >= m for g, m in zip(got, low))


def raised(have, minimum):
    """``have`` with only the fields below the minimum raised to it; the
    minimum itself when ``have`` is unknown. None when they cannot be compared."""
    if have is None:
        return _norm(minimum)
    got, low = fields(have), fields(minimum)
    if got is None or low is None or len(got) != len(low):
        return None
    return " ".join(str(max(g, m)) for g, m in zip(got, low))


def above(have, minimum):
    """The fields where ``have`` exceeds the minimum (the plan says they are kept)."""
    got, low = fields(have) or [], fields(minimum) or []
    return [i for i, (g, m) in enumerate(zip(got, low)) if g > m]


def effective_value(spec, live):
    """The value the rule leaves the key at, given its live value: for the
    families that read a sysctl rule (Oracle's shm checks, tuned's conflicts)."""
    kind, value, _ = spec_of(spec)
    if kind == "at_least":
        return raised(live, value) or value
    return value
