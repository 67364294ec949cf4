"""A journal record's line and checksum, each JSON encoding done once.

The checksum of a record is the first 16 hex digits of the sha256 of its
JSON (keys sorted, without the checksum), and its line is that JSON with
``"sum"`` in its sorted place. A giant host's apply and revert write 140,000
records and read 70,000 back: encoding each twice to seal it, and once
again to check it, was a third of revert's time (issue #29). So a record is
encoded once and its checksum, taken of that text, put in its place; a line
read back is checked on its own bytes (the line without its ``"sum"`` item
is the text the checksum was taken of), re-encoding the parsed record only
when those bytes do not match (a line written by another encoder, or changed).
"""
import hashlib
import json



def _encoder():
    """json.dumps(obj, sort_keys=True) without building an encoder per call
    (a third of the cost of a small record): the C encoder made once, kept
    only where it gives json.dumps's bytes."""
    slow = json.JSONEncoder(sort_keys=True).encode
    try:
        from json.encoder import c_make_encoder, encode_basestring_ascii
        fast = c_make_encoder(None, json.JSONEncoder().default, encode_basestring_ascii, None, ": ", ", ",
                              True, False, True)
        sample = {"t": "x", "a": [1, 2.5, None, True, "\u00e9\n"], "b": {"z": 1, "c": -0.0}}
        if "".join(fast(sample, 0)) == slow(sample):
            return lambda obj: "".join(fast(obj, 0))
    except Exception:
        pass
    return slow


_ENCODE = _encoder()
_STRING = json.encoder.encode_basestring_ascii     # how _ENCODE writes a string (ensure_ascii)
# A value write's intent as _ENCODE writes it (keys sorted; "raw", when there, after "path").
_VALUE_INTENT = ('{"change": %s, "op": {"after": %s, "before": %s, "format": %s, "kind": "value", "path": %s%s}, '
                 '"seq": %d}')


def _intent_text(item):
    """_ENCODE(item) of an "intents" record's item. A value write's (a giant
    host's apply journals 35,000 of them) is put together from its strings:
    the encoder sorts each dict's keys, the op's and the item's, for texts
    always in the same places."""
    if len(item) == 3:
        op, seq, change = item.get("op"), item.get("seq"), item.get("change")
        if isinstance(op, dict) and type(seq) is int and type(change) is str and op.get("kind") == "value":
            n = len(op)
            after, before, form, path, raw = (op.get("after"), op.get("before"), op.get("format"), op.get("path"),
                                              op.get("raw", ""))
            if type(after) is str and type(before) is str and type(form) is str and type(path) is str \
                    and type(raw) is str and (n == 5 if "raw" not in op else n == 6) and type(op["kind"]) is str:
                return _VALUE_INTENT % (_STRING(change), _STRING(after), _STRING(before), _STRING(form),
                                        _STRING(path), ', "raw": ' + _STRING(raw) if n == 6 else "", seq)
    return _ENCODE(item)


def _body(record):
    """_ENCODE(record): an "intents" record as its items' texts joined, any other by the encoder."""
    if record.get("t") == "intents" and len(record) == 3 and type(record.get("seq")) is int \
            and type(record.get("intents")) is list and all(type(i) is dict for i in record["intents"]):
        return '{"intents": [%s], "seq": %d, "t": "intents"}' % (", ".join(map(_intent_text, record["intents"])),
                                                                 record["seq"])
    return _ENCODE(record)


def _sum(record):
    """A record's checksum: the first 16 hex digits of the sha256 of its JSON
    (keys sorted, without the checksum). A changed field, a forged record or
    a bit flip shows as a mismatch; it guards against accidents and edits, it
    is not a signature."""
    body = {k: v for k, v in record.items() if k != "sum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def sealed(record):
    return dict(record, sum=_sum(record))


def line(record):
    """The journal line (bytes, with its newline) of ``record`` sealed: the
    same bytes as ``json.dumps(sealed(record), sort_keys=True)``."""
    for key in record:
        if type(key) is not str:    # json.dumps makes other keys strings: its way, then
            return (json.dumps(sealed(record), sort_keys=True) + "\n").encode()
    if "sum" in record:
        record = {k: v for k, v in record.items() if k != "sum"}
    # Encoded once, as bytes: a giant host's begin record is 8.6 MB, copied by each "+" of its text.
    body = _body(record).encode()
    item = b'"sum": "%s"' % hashlib.sha256(body).hexdigest()[:16].encode()
    # The items after "sum" in key order ("t" in most records) end the body:
    # encoded alone, they say where the checksum goes.
    after = [k for k in record if k > "sum"]
    if not after:
        return b"".join((body[:-1], b", " if len(body) > 2 else b"", item, b"}\n"))
    if after == ["t"] and type(record["t"]) is str:
        tail = '"t": %s}' % _STRING(record["t"])    # most records: their type alone, without an encoder run
    else:
        tail = _ENCODE({k: record[k] for k in after})[1:]
    tail = tail.encode()
    return b"".join((memoryview(body)[:-len(tail)], item, b", ", tail, b"\n"))


def intact(raw, record):
    """Whether parsed ``record`` (which has a "sum") is the one its checksum
    was taken of; ``raw`` is its line's bytes."""
    total = record["sum"]
    if isinstance(total, str) and len(total) == 16 and total.isalnum() and total.isascii():
        item = b'"sum": "' + total.encode() + b'"'
        at = raw.find(item)
        if at > 0:
            end = at + len(item)
            if raw[end:end + 2] == b", ":
                body = raw[:at] + raw[end + 2:]
            elif raw[at - 2:at] == b", ":
                body = raw[:at - 2] + raw[end:]
            else:
                body = raw[:at] + raw[end:]
            if hashlib.sha256(body).hexdigest()[:16] == total:
                return True
    return total == _sum(record)
