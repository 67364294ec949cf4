"""Reading policy files: TOML parsing, ``extends`` chains, merging, and
turning a schema problem into ``file:line: message``."""
import os
import re

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from numatune.errors import HostError, PolicyError
from numatune.policy.schema import SchemaError
from numatune.rootfs.readfile import POLICY_LIMIT, read_path

_KEY = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_DOTTED = r"%s(?:\s*\.\s*%s)*" % (_KEY, _KEY)
# Patterns, compiled (by re's cache) on first use: only a policy error or a rule's file:line reads
# the lines of a policy, not a check of a policy that loads.
_HEADER = r"^\s*\[\[?\s*(%s)\s*\]\]?" % _DOTTED
_ASSIGN = r"^\s*(%s)\s*=" % _DOTTED


def _split_dotted(text):
    return [p.strip("\"'") for p in re.findall(_KEY, text)]


def key_lines(text):
    """Dotted key (array indices dropped) -> first line number that defines it."""
    lines = {}
    table = []
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(_HEADER, line)
        if header:
            table = _split_dotted(header.group(1))
            lines.setdefault(".".join(table), number)
            continue
        assign = re.match(_ASSIGN, line)
        if assign:
            key = table + _split_dotted(assign.group(1))
            for i in range(len(table) + 1, len(key) + 1):
                lines.setdefault(".".join(key[:i]), number)
    return lines


def line_of(text, dotted, parts=None):
    """Best line for a key: its TOML parts, or a dotted string such as
    ``block[2].match.vendor``."""
    if parts is None:
        parts = [p for p in re.sub(r"\[\d+\]", "", dotted).split(".") if p]
    parts = list(parts)
    table = key_lines(text)
    while parts:
        number = table.get(".".join(parts))
        if number:
            return number
        parts.pop()
    return None


def parse_file(path):
    """(data, text) of a TOML policy file, or a PolicyError naming it."""
    try:
        # Not blocking on a FIFO, no device read without end (--policy /dev/zero).
        raw = read_path(path, POLICY_LIMIT)
    except HostError as e:
        raise PolicyError(e.message, "give a TOML policy file")
    except FileNotFoundError:
        raise PolicyError("%s: policy file not found" % path,
                          "give a path, or the name of a shipped policy (numatune plan --list-policies)")
    except OSError as e:
        raise PolicyError("%s: cannot read policy: %s" % (path, e.strerror))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PolicyError("%s: not UTF-8 text (byte %d)" % (path, e.start), "TOML files must be UTF-8")
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise PolicyError("%s: invalid TOML: nested too deeply" % path)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        if m:
            msg = msg[:m.start()].strip()
            raise PolicyError("%s:%s: invalid TOML: %s (column %s)" % (path, m.group(1), msg, m.group(2)))
        raise PolicyError("%s: invalid TOML: %s" % (path, msg))
    return data, text


def schema_error(path, text, err):
    line = line_of(text, err.key, err.parts) if text else None
    where = "%s:%d" % (path, line) if line else path
    return PolicyError("%s: %s" % (where, err.message), err.hint)


def merge(base, over, spec=None):
    """Later files override earlier ones key by key; arrays of tables
    (``[[block]]``) add to each other, other arrays replace. A table whose
    schema says ``whole_entries`` takes a later file's entry whole: a sysctl
    rule's ``at_least`` must replace an earlier ``value``, not sit beside it."""
    out = dict(base)
    whole = getattr(spec, "whole_entries", False)
    for key, value in over.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict) and not whole:
            out[key] = merge(old, value, _field(spec, key))
        elif (isinstance(old, list) and isinstance(value, list) and value
              and all(isinstance(v, dict) for v in value + old)):
            out[key] = old + value
        else:
            out[key] = value
    return out


def _field(spec, key):
    fields = getattr(spec, "fields", None)
    return fields.get(key) if fields is not None else None


def resolve_ref(ref, relative_to, shipped_dir):
    """A policy reference: a path (relative to the file that names it) or
    the name of a shipped policy."""
    if os.sep in ref or ref.endswith(".toml"):
        path = ref if os.path.isabs(ref) else os.path.join(relative_to, ref)
        return os.path.normpath(path)
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", ref):
        raise PolicyError("%r is not a policy name or path" % ref)
    candidate = os.path.join(shipped_dir, ref + ".toml")
    if not os.path.exists(candidate):
        names = sorted(n[:-5] for n in os.listdir(shipped_dir) if n.endswith(".toml"))
        import difflib
        close = difflib.get_close_matches(ref, names, 1)
        raise PolicyError("no shipped policy named %r" % ref,
                          "did you mean %r?" % close[0] if close else "shipped: %s" % ", ".join(names))
    return candidate


__all__ = ["parse_file", "schema_error", "merge", "resolve_ref", "line_of", "SchemaError"]
