"""JSON for people and programs alike: one top-level key per line, one list
item per line, each item compact. json's C encoder only runs without
``indent``; with it, a 33,000-change plan spent seconds in pure-Python encoding.
And each item is encoded by one C encoder made once: json.dumps builds a new
one per call, which was a third of `check --format json`'s rendering on a giant host."""
import json


def _encoder():
    """json.dumps(obj) (default separators, ASCII, no key sorting) with the C
    encoder made once; json.dumps itself where that is not the same text."""
    try:
        from json.encoder import c_make_encoder, encode_basestring_ascii
        fast = c_make_encoder(None, json.JSONEncoder().default, encode_basestring_ascii, None, ": ", ", ",
                              False, False, True)
        sample = {"t": "x", "a": [1, 2.5, None, True, "\u00e9\n", 1e300], "b": {"z": 1, "c": -0.0}, "e": []}
        if fast is not None and "".join(fast(sample, 0)) == json.dumps(sample):
            return lambda value: "".join(fast(value, 0))
    except Exception:
        pass
    return json.dumps


_ENCODE = encode = _encoder()


class Encoded(list):
    """List items already encoded as JSON text (report.changejson): written as they are."""


def emit(data):
    """``data`` on stdout as dumps writes it, one line at the end."""
    import sys
    sys.stdout.write(dumps(data) + "\n")


def dumps(data):
    if not isinstance(data, dict):
        return _value(data, "")
    if not data:
        return "{}"
    lines = ['  %s: %s' % (_ENCODE(k), _value(v, "  ")) for k, v in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


def _value(value, indent):
    if isinstance(value, list) and value:
        inner = indent + "  "
        items = value if value.__class__ is Encoded else map(_ENCODE, value)
        return "[\n" + ",\n".join(inner + v for v in items) + "\n" + indent + "]"
    return _ENCODE(value)
