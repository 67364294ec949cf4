"""JSON for people and programs alike: one top-level key per line, one list
item per line, each item compact. json's C encoder only runs without
``indent``; with it, a 33,000-change plan spent seconds in pure-Python encoding."""
import json


def dumps(data):
    if not isinstance(data, dict):
        return _value(data, "")
    if not data:
        return "{}"
    lines = ['  %s: %s' % (json.dumps(k), _value(v, "  ")) for k, v in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def _value(value, indent):
    if isinstance(value, list) and value:
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + json.dumps(v) for v in value) + "\n" + indent + "]"
    return json.dumps(value)
