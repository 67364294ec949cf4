"""Parameter names and values: validated once, rendered for a pfile or SQL,
and normalised so a file, a view and a policy compare equal.

Everything that ends up in SQL passes through here; text that fails the
checks is refused with an OracleError, never escaped and hoped for the best.
"""
import re

from numatune.errors import PolicyError

# Documented names are letters, digits, '_' and '#'/'$'; hidden ones start with '_'.
NAME_RE = re.compile(r"^_{0,2}[A-Za-z][A-Za-z0-9_#$]{0,79}\Z")
SID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]{0,15}\Z")
# A quoted value may hold paths, plan names, connect descriptors, lists...
# but never a quote, a semicolon or a control character, so it can't close
# the literal or start another statement.
TEXT_RE = re.compile(r"^[A-Za-z0-9 _.,:/=()@#$+%*-]{0,512}\Z")
SIZE_RE = re.compile(r"^(\d+)([KMGTkmgt]?)\Z")
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# Parameters that hold byte sizes, compared as bytes ("28941m" == 30347608064).
SIZE_PARAMS = {
    "sga_target", "sga_max_size", "memory_target", "memory_max_target", "pga_aggregate_target",
    "pga_aggregate_limit", "db_cache_size", "shared_pool_size", "large_pool_size", "java_pool_size",
    "streams_pool_size", "log_buffer", "db_keep_cache_size", "db_recycle_cache_size",
    "db_2k_cache_size", "db_4k_cache_size", "db_8k_cache_size", "db_16k_cache_size", "db_32k_cache_size",
    "inmemory_size", "shared_pool_reserved_size", "db_recovery_file_dest_size",
}


def check_name(name):
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise PolicyError("%r is not an Oracle parameter name" % (name,),
                          "names are letters, digits and '_' (hidden ones start with '_')")
    return name


def check_sid(sid):
    if sid != "*" and (not isinstance(sid, str) or not SID_RE.match(sid)):
        raise PolicyError("%r is not an Oracle SID" % (sid,), "a SID is up to 16 letters, digits and '_', or '*'")
    return sid


def _literal(text):
    if not TEXT_RE.match(text):
        raise PolicyError("value %r is refused: quotes, ';', newlines and control characters are not allowed"
                          % (text,), "Oracle parameter values never need them")
    return "'%s'" % text


def render(value):
    """The policy value as Oracle writes it: TRUE, 8, 4G, 'ONLY', 'a','b'."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        if value < 0:
            raise PolicyError("value %d is negative" % value, "Oracle parameters are never negative")
        return str(value)
    if isinstance(value, list):
        if not value:
            raise PolicyError("an empty list is not a parameter value", "leave the parameter out instead")
        return ",".join(render(v) if not isinstance(v, str) else _literal(v) for v in value)
    if isinstance(value, str):
        if SIZE_RE.match(value):
            return value.upper()
        if value.upper() in ("TRUE", "FALSE"):
            return value.upper()
        return _literal(value)
    raise PolicyError("value %r has an unsupported type" % (value,), "use a string, an integer or a boolean")


def _split_list(text):
    """Items of a value, split on commas outside quotes."""
    items, cur, quote = [], [], None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
            cur.append(ch)
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch == ",":
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    items.append("".join(cur))
    return [i.strip() for i in items]


def normalize(name, text):
    """A comparable form of a value as found in a file, a view or render()."""
    if text is None:
        return None
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    out = []
    for item in _split_list(text):
        if len(item) >= 2 and item[0] == item[-1] and item[0] in "'\"":
            item = item[1:-1]
        m = SIZE_RE.match(item)
        if m and (name.lower() in SIZE_PARAMS or m.group(2)):
            item = str(int(m.group(1)) * UNITS[m.group(2).upper()])
        # Oracle itself is case-blind for keywords and plan names; paths that
        # differ only in case are not worth a false "drift".
        out.append(item.upper())
    return ",".join(out)


def to_bytes(text):
    """Bytes of a size value ('4G', '28941m', '0'), None if not a size."""
    if text is None:
        return None
    t = str(text).strip().strip("'\"")
    m = SIZE_RE.match(t)
    return int(m.group(1)) * UNITS[m.group(2).upper()] if m else None
