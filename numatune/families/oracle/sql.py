"""The only SQL numatune sends: ALTER SYSTEM SET/RESET built from names and
values that passed ``values`` checks, and fixed queries with bind variables.

DDL takes no bind variables, so the statement text is assembled here, and
every piece is checked again right before it is joined: a value that is not
TRUE/FALSE, a number (with K/M/G/T) or quoted safe text never reaches it.
"""
import re

from numatune.errors import PolicyError
from numatune.families.oracle import values

SCOPES = ("MEMORY", "SPFILE", "BOTH")
RENDERED_RE = re.compile(r"^(TRUE|FALSE|\d+[KMGT]?|'[^'\x00-\x1f;]*'(,'[^'\x00-\x1f;]*')*)\Z")

# Reads: fixed text, parameters as binds.
PARAMETERS = ("SELECT name, value, isdefault, issys_modifiable, isinstance_modifiable "
              "FROM v$parameter")
SPPARAMETERS = ("SELECT sid, name, value, ordinal FROM v$spparameter "
                "WHERE isspecified = 'TRUE' ORDER BY sid, name, ordinal")
SPPARAMETER_ONE = ("SELECT sid, value, ordinal FROM v$spparameter WHERE name = :name "
                   "AND sid IN (:sid, '*') AND isspecified = 'TRUE' ORDER BY sid, ordinal")
PARAMETER_ONE = "SELECT value FROM v$parameter WHERE name = :name"
INSTANCES = "SELECT inst_id, instance_name, host_name, version FROM gv$instance ORDER BY inst_id"
SGAINFO = "SELECT name, bytes FROM v$sgainfo"


def quote_name(name):
    values.check_name(name)
    # Hidden parameters must be double-quoted; the checked name has no quote.
    return '"%s"' % name if name.startswith("_") else name.lower()


def _sid_clause(sid):
    values.check_sid(sid)
    return "SID='%s'" % sid


def _scope(scope):
    if scope not in SCOPES:
        raise PolicyError("scope %r is not one of %s" % (scope, ", ".join(SCOPES)))
    return scope


def alter_set(name, rendered, scope, sid):
    """ALTER SYSTEM SET for a value already rendered by values.render*."""
    if not isinstance(rendered, str) or not RENDERED_RE.match(rendered):
        raise PolicyError("value %r is refused for SQL" % (rendered,), "values come from values.render")
    return "ALTER SYSTEM SET %s=%s SCOPE=%s %s" % (quote_name(name), rendered, _scope(scope), _sid_clause(sid))


def alter_reset(name, scope, sid):
    """Back to "not specified" (the default) in the spfile."""
    return "ALTER SYSTEM RESET %s SCOPE=%s %s" % (quote_name(name), _scope(scope), _sid_clause(sid))


def render_stored(stored):
    """A value as v$spparameter holds it (one string per ordinal) rendered
    for ALTER SYSTEM SET, through the same checks as a policy value."""
    items = [s for s in stored if s is not None]
    if not items:
        return None
    if len(items) == 1 and re.match(r"^(\d+[KMGTkmgt]?|TRUE|FALSE|true|false)\Z", items[0]):
        return items[0].upper()
    return values.render(items if len(items) > 1 else items[0])
