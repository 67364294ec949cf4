"""What `numatune plan --list-policies` and `numatune policy show` print:
the shipped policies with their descriptions, and a merged policy (after
``extends``) as TOML with the file and line each key came from."""
import json
import os
import re
import textwrap

from numatune.policy.loader import parse_file
from numatune.policy.stack import shipped_dir, shipped_names

WIDTH = 80
INDENT = "    "


def shipped_list():
    """"name  description" per shipped policy, names aligned."""
    rows = []
    for name in shipped_names():
        try:
            data, _ = parse_file(os.path.join(shipped_dir(), name + ".toml"))
            desc = data.get("policy", {}).get("description", "")
        except Exception as e:  # a broken shipped file still gets its line, and why
            desc = "(unreadable: %s)" % e
        rows.append((name, desc))
    width = max((len(n) for n, _ in rows), default=0)
    # Within 80 columns: a long description goes on under itself, not under the names.
    return "\n".join(textwrap.fill(d, WIDTH, initial_indent="%-*s  " % (width, n),
                                   subsequent_indent=" " * (width + 2)) if d else n for n, d in rows)


def _toml(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[%s]" % ", ".join(_toml(v) for v in value)
    if isinstance(value, dict):
        return "{ %s }" % ", ".join("%s = %s" % (_key(k), _toml(v)) for k, v in value.items())
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return json.dumps(str(value), ensure_ascii=False)


def _key(k):
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def _is_table_array(v):
    return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)


def _where(policy, dotted, parts):
    return policy.locate(dotted, parts)


def _string_lines(head, text):
    """A long string as a TOML multi-line string whose lines end in a
    backslash (TOML drops it, the newline and the next line's indent), cut at
    single spaces so no line passes WIDTH and the value stays the same."""
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    lines, line = [head + '"""\\'], ""
    for word in re.split(r"(?<= )(?=[^ ])", escaped):     # each piece keeps the space it ends with
        if line and len(INDENT + line + word) > WIDTH - 1:
            lines.append(INDENT + line + "\\")
            line = ""
        line += word
    lines.append(INDENT + line + '"""')
    return lines


def _value_lines(key, value):
    """``key = value`` within WIDTH columns: long strings and lists go on over several lines."""
    one = "%s = %s" % (key, _toml(value))
    if len(one) <= WIDTH:
        return [one]
    if isinstance(value, str) and "\n" not in value:
        return _string_lines("%s = " % key, value)
    if isinstance(value, list) and not any(isinstance(v, dict) for v in value):
        return ["%s = [" % key] + ["%s%s," % (INDENT, _toml(v)) for v in value] + ["]"]
    return [one]


def _table(policy, path, table, out):
    plain = [(k, v) for k, v in table.items() if not isinstance(v, dict) and not _is_table_array(v)]
    for k, v in plain:
        parts = [p for p in path if not isinstance(p, int)] + [k]
        # Where the key came from, above it: beside a long value it pushed lines past 80 columns.
        out.append("# %s" % _short(policy, _where(policy, ".".join(parts), parts)))
        out += _value_lines(_key(k), v)
    for k, v in table.items():
        if isinstance(v, dict):
            name = ".".join(_key(p) for p in path + [k] if not isinstance(p, int))
            out += ["", "[%s]" % name]
            _table(policy, path + [k], v, out)
        elif _is_table_array(v):
            for i, item in enumerate(v):
                name = ".".join(_key(p) for p in path + [k] if not isinstance(p, int))
                out += ["", "[[%s]]  # %s[%d]" % (name, name, i)]
                _table(policy, path + [k, i], item, out)


def _short(policy, where):
    """``file:line`` with the file's base name when no other source shares it
    (the header names every file in full)."""
    path, sep, line = where.rpartition(":")
    if not sep or not line.isdigit():
        path, line = where, None
    base = os.path.basename(path)
    if sum(os.path.basename(s) == base for s in policy.sources) == 1:
        path = base
    return path if line is None else "%s:%s" % (path, line)


def merged_text(policy):
    """The merged policy as TOML, each key with ``# file:line`` of the last
    file that sets it; first a header naming the files in load order."""
    out = ["# numatune policy %s, merged from (later files win):" % policy.name]
    out += ["#   %s" % path for path in policy.sources]
    _table(policy, [], policy.data, out)
    return "\n".join(out)
