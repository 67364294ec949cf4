"""What `numatune plan --list-policies` and `numatune policy show` print:
the shipped policies with their descriptions, and a merged policy (after
``extends``) as TOML with the file and line each key came from."""
import json
import os

from numatune.policy.loader import parse_file
from numatune.policy.stack import shipped_dir, shipped_names


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
    return "\n".join(("%-*s  %s" % (width, n, d)).rstrip() for n, d in rows)


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


def _table(policy, path, table, out):
    plain = [(k, v) for k, v in table.items() if not isinstance(v, dict) and not _is_table_array(v)]
    for k, v in plain:
        parts = [p for p in path if not isinstance(p, int)] + [k]
        out.append("%s = %s  # %s" % (_key(k), _toml(v), _where(policy, ".".join(parts), parts)))
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


def merged_text(policy):
    """The merged policy as TOML, each key with ``# file:line`` of the last
    file that sets it; first a header naming the files in load order."""
    out = ["# numatune policy %s, merged from (later files win):" % policy.name]
    out += ["#   %s" % path for path in policy.sources]
    _table(policy, [], policy.data, out)
    return "\n".join(out)
