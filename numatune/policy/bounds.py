"""Bounds on what a policy may ask (#28), whatever table holds it.

A policy names the settings of one host: far fewer than these. A policy past
them is a generated or damaged file, and planning it would cost minutes and
journal megabytes before anyone read the plan. Each file is checked on its
own (the error names its line) and the merged policy again (``extends`` and
stacked files add arrays of tables to each other). Families bound their own
tables tighter where the host sets a limit: [sysctl] keys
(numatune.families.sysctl.knob.MAX_KEYS), kernel command-line arguments
(numatune.families.boot.cmdline.MAX_ARGS).

    MAX_TEXT    characters in a string or a key     (the longest shipped: 341)
    MAX_ITEMS   items in an array                   (cpus, nodes, device names)
    MAX_KEYS    keys in one table                   (sysctl keys, udev properties, parameters)
    MAX_TABLES  entries of an array of tables       ([[block]], [[cpuset]], [[net]], instances)
"""
from numatune.policy.schema import SchemaError

MAX_TEXT = 4096
MAX_ITEMS = 1024
MAX_KEYS = 4096
MAX_TABLES = 256

HINT = "a policy names the settings of one host; generate fewer, or split the host's rules by role"


def check(data):
    """Raise SchemaError (key, parts) at the first bound ``data`` exceeds."""
    todo = [("", (), data)]
    while todo:
        key, parts, value = todo.pop()
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise SchemaError(key, "%s is %d characters long, more than %d" % (key, len(value), MAX_TEXT),
                                  "shorten it", parts=parts)
        elif isinstance(value, dict):
            if len(value) > MAX_KEYS:
                raise SchemaError(key, "[%s] holds %d keys, more than %d" % (key or "root", len(value), MAX_KEYS),
                                  HINT, parts=parts)
            for name, sub in value.items():
                if len(name) > MAX_TEXT:
                    raise SchemaError(key, "a key in [%s] is %d characters long, more than %d"
                                      % (key or "root", len(name), MAX_TEXT), "shorten it", parts=parts)
                todo.append(("%s.%s" % (key, name) if key else name, parts + (name,), sub))
            todo[len(todo) - len(value):] = reversed(todo[len(todo) - len(value):])  # the file's order
        elif isinstance(value, list):
            tables = bool(value) and all(isinstance(v, dict) for v in value)
            if tables and len(value) > MAX_TABLES:
                raise SchemaError(key, "[[%s]] has %d entries, more than %d" % (key, len(value), MAX_TABLES),
                                  HINT, parts=parts)
            if not tables and len(value) > MAX_ITEMS:
                raise SchemaError(key, "%s lists %d items, more than %d" % (key, len(value), MAX_ITEMS),
                                  HINT, parts=parts)
            todo.extend(("%s[%d]" % (key, i), parts, v) for i, v in reversed(list(enumerate(value))))
