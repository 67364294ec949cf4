"""Persistence routes: another mechanism than a family's own file that keeps
a value at boot (a tuned profile keeps sysctls and queue settings).

A family that offers a route puts ``"routes"`` in its resolved values:
``{kind: {key: {"by": "who keeps it", "kept": bool}}}``. ``kept`` means the
host keeps that value already (no write needed); otherwise the route's own
change will carry it, and the family that would write its file leaves the
value to that change. A family looks routes up here by kind and key only,
never by who offers them.
"""


def route(facts, kind, key):
    """The route that keeps ``kind``/``key`` ({"by", "kept"}) or None."""
    for resolved in (facts.get("resolved") or {}).values():
        if isinstance(resolved, dict):
            found = (resolved.get("routes") or {}).get(kind, {}).get(key)
            if found:
                return found
    return None
