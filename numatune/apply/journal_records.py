"""Reading a journal's records back: each line parsed, checked (its
checksum, its fields, an intent's bytes against their sha256) and the
sequence numbers the records name checked for gaps.

A record about writes names them by ``seq``; a record about a whole batch
of them (group commit: the "done" of a batch of writes, the "undoing" and
the outcomes of a batch of undos) also lists them all in ``seqs``, ``seq``
being the first. Journals written before batched records name one write
per record, and read the same.

The intents of a batch are one "intents" record (``intents``: each write's
seq, change and op; ``seq``: the first's), with one checksum: a giant
host's apply sealed 35,000 intent records one by one, and revert checked
each. It is written and fsynced whole before any of its writes, as a
batch's intent records were; a reader expands it into the "intent"
records it holds, so everything after parsing sees intents as before (a
journal of one record per intent reads the same).
"""
import base64
import hashlib
import json

from numatune.apply.seal import intact

# Fields a record must have to be understood; seq is an int everywhere.
REQUIRED = {"intent": ("seq", "op"), "intents": ("seq", "intents"), "done": ("seq",), "undoing": ("seq",),
            "undone": ("seq",), "skipped": ("seq",), "failed": ("seq",)}
# The records that may name a batch of writes in ``seqs``.
BATCHED = ("done", "undoing", "undone", "skipped")


def intents_record(intents):
    """The journal record of a batch's ``intents`` (each {"seq", "change",
    "op"}, in order): an "intent" record when alone, else one "intents" record."""
    if len(intents) == 1:
        return dict(intents[0], t="intent")
    return {"t": "intents", "seq": intents[0]["seq"], "intents": intents}


def expand(record):
    """The "intent" records an "intents" record holds ([record] for any other)."""
    if record.get("t") != "intents":
        return [record]
    return [dict(item, t="intent") for item in record["intents"]]


def seqs_of(record):
    """The seqs a (valid) record names: its ``seqs``, else its ``seq``."""
    many = record.get("seqs")
    return many if many is not None else [record["seq"]]


def batch_record(kind, fields=None, seqs=()):
    """One record of ``kind`` (with ``fields``) for the writes ``seqs``: as
    before batching when there is one, else naming the first in ``seq`` and
    all in ``seqs``."""
    record = {"t": kind, "seq": seqs[0]}
    if len(seqs) > 1:
        record["seqs"] = list(seqs)
    record.update(fields or {})
    return record


def _is_seq(value):
    return isinstance(value, int) and not isinstance(value, bool)


_JSON_INT = {int}


def _all_seqs(values):
    """Whether every one of ``values`` is a seq: JSON's ints told apart in C
    by their type alone (a revert's records name 105,000 seqs), anything
    else asked one by one."""
    return set(map(type, values)) == _JSON_INT or all(_is_seq(s) for s in values)


def _all_dicts(values):
    """Whether every one of ``values`` is a dict: JSON's told apart in C by
    their type alone (a giant host's intents records hold 35,000)."""
    return set(map(type, values)) == _JSON_DICT or all(isinstance(v, dict) for v in values)


_JSON_DICT = {dict}


def _data_mismatch(op):
    """Why an op's journaled bytes are not what their sha256 says, or None."""
    if not (isinstance(op.get("before"), dict) or isinstance(op.get("after"), dict)):
        return None     # a value's text on both sides (35,000 of a giant host's ops): no bytes to check
    for side in ("before", "after"):
        state = op.get(side)
        if isinstance(state, dict) and isinstance(state.get("data"), str) and isinstance(state.get("sha256"), str):
            try:
                data = base64.b64decode(state["data"], validate=True)
            except (ValueError, TypeError):
                return "the %s bytes are not base64" % side
            if hashlib.sha256(data).hexdigest() != state["sha256"]:
                return "the %s bytes do not match their sha256" % side
    return None


def _bad(record):
    """Why a parsed line is not a record numatune can use, or None."""
    if not isinstance(record, dict):
        return "not a record (a JSON %s)" % type(record).__name__
    kind = record.get("t")
    if not isinstance(kind, str):
        return "no record type"
    for field in REQUIRED.get(kind, ()):
        if field not in record:
            return "%s record without %r" % (kind, field)
    if "seq" in REQUIRED.get(kind, ()) and not _is_seq(record["seq"]):
        return "%s record with a seq that is not a number" % kind
    if "seqs" in record:
        many = record["seqs"]
        if kind not in BATCHED or not isinstance(many, list) or not many or not _all_seqs(many) \
                or many[0] != record["seq"]:
            return "%s record with seqs that are not a list of numbers starting at its seq" % kind
    afters = record.get("afters")
    if afters is not None and (kind != "done" or not isinstance(afters, dict)
                               or not all(k.isdigit() and k.isascii() and int(k) in seqs_of(record) for k in afters)):
        return "%s record with afters that are not its writes' values" % kind
    if kind == "intents":
        many = record.get("intents")
        if not isinstance(many, list) or not many or not _all_dicts(many) or many[0].get("seq") != record["seq"]:
            return "intents record without a list of intents starting at its seq"
    if kind == "intent" and not (isinstance(record["op"], dict) and isinstance(record["op"].get("kind"), str)
                                 and isinstance(record["op"].get("path", ""), str)):
        return "intent record with an unusable op"
    return None


def parse_journal(data, name, stub_begin=False):
    """(records, problems) of a journal's bytes; each problem "name:line: why".
    A bad line costs only itself. ``stub_begin``: an intact begin record
    comes as a BeginStub (its fields after the checksum; the rest decoded
    when asked)."""
    records, problems = [], []
    sealed_journal = None       # whether its records carry checksums (journals before 0.9 do not)
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        if not raw.strip(b"\x00 \t\r"):
            continue  # blank, or zeros a crash left in reserved room
        if stub_begin and sealed_journal is None:
            stub_begin = False      # the first record only
            stub = BeginStub.of(raw)
            if stub is not None:
                sealed_journal = True
                records.append(stub)
                continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            torn = number == len(lines)
            problems.append("%s:%d: %s" % (name, number, "torn last record (a crash mid-append; the write it "
                                           "announced never started)" if torn else "not a JSON record"))
            continue
        why = _bad(record)
        if why:
            problems.append("%s:%d: %s" % (name, number, why))
            continue
        if sealed_journal is None:
            sealed_journal = "sum" in record
        if "sum" in record and not intact(raw, record):
            problems.append("%s:%d: checksum mismatch (the %s record was changed after it was written)"
                            % (name, number, record["t"]))
            continue
        if sealed_journal and "sum" not in record:
            problems.append("%s:%d: %s record without a checksum in a journal whose records have one"
                            % (name, number, record["t"]))
            continue
        if record["t"] == "intents":
            _add_intents(records, problems, record, "%s:%d" % (name, number))
            continue
        why = _data_mismatch(record["op"]) if record["t"] == "intent" else None
        if why:
            problems.append("%s:%d: intent %s: %s" % (name, number, record["seq"], why))
            continue
        records.append(record)
    if not records and not problems:
        problems.append("%s:1: empty journal (no begin record): what it recorded cannot be known" % name)
    missing = _missing_intents(records)
    if missing:
        problems.append("%s: intent %s missing (a gap in the sequence numbers)"
                        % (name, ", ".join(map(str, missing[:10]))))
    return records, problems


class BeginStub(dict):
    """A begin record's fields after its checksum ("t", "time", "txid",
    "whys") and the checksum, the others (its changes, policy and audit)
    decoded from its line when asked (``whole``): revert needs its time and
    how many changes it has, which the journal index gives (#38). A giant
    host's begin line is 8.6 MB of a 15 MB journal, and decoding it was half
    of parsing the journal for a revert."""
    __slots__ = ("raw",)

    @classmethod
    def of(cls, raw):
        """The stub of a begin line whose checksum matches its bytes, else None
        (any other line, a line written without a checksum or changed since:
        parsed whole, as any other). The checksum's item is where seal.line
        puts it, before the fields whose names sort after "sum" (its last
        one: a string holds no bare quote)."""
        at = raw.rfind(b'"sum": "')
        total, tail = raw[at + 8:at + 24], raw[at + 27:]
        if at <= 0 or raw[at + 24:at + 27] != b'", ' or not tail.startswith(b'"t": "begin", ') \
                or not (total.isalnum() and total.isascii()):
            return None
        if hashlib.sha256(raw[:at] + tail).hexdigest()[:16].encode() != total:
            return None
        try:
            fields = json.loads(b"{" + tail)
        except (ValueError, RecursionError):
            return None
        if type(fields) is not dict or fields.get("t") != "begin":
            return None
        stub = cls(fields, sum=total.decode())
        stub.raw = raw
        return stub

    def whole(self):
        """The begin record whole (its line decoded)."""
        try:
            record = json.loads(self.raw.decode("utf-8"))
        except (ValueError, RecursionError):
            record = None
        return record if type(record) is dict and record.get("t") == "begin" else dict(self)


def _add_intents(records, problems, record, where):
    """The intents of an intact "intents" record, each checked as an intent
    record is; one that is not usable costs only itself (its gap is seen)."""
    append = records.append
    for intent in record["intents"]:
        intent["t"] = "intent"      # the parsed item itself, now an intent record
        # Usable at a glance (what _bad asks of an intent, for JSON's own types), tested inline
        # (35,000 a giant host's journal); any other goes through _bad.
        op = intent.get("op")
        if not (type(op) is dict and type(intent.get("seq")) is int and type(op.get("kind")) is str
                and type(op.get("path", "")) is str and "seqs" not in intent and "afters" not in intent):
            why = _bad(intent)
            if why:
                problems.append("%s: %s" % (where, why))
                continue
            op = intent["op"]
        # _data_mismatch's first test, without the call: a giant host's 35,000 values hold no bytes
        if isinstance(op.get("before"), dict) or isinstance(op.get("after"), dict):
            why = _data_mismatch(op)
            if why:
                problems.append("%s: intent %s: %s" % (where, intent["seq"], why))
                continue
        append(intent)


def _missing_intents(records):
    """The seqs below the highest one the journal names that have no intent.
    Not only the intents' own seqs: a gap at the end of a group (the last
    intent lost, its "done" kept) shows only in a later record naming it,
    and one lost with its "done" only in the commit's count of writes."""
    seqs = {r["seq"] for r in records if r["t"] == "intent"}
    # An intent names its own seq only (``seqs`` is refused on one): those are in ``seqs`` already.
    named = [s for r in records if r["t"] in REQUIRED and r["t"] != "intent" for s in seqs_of(r)]
    named += [r["writes"] for r in records if r["t"] == "commit" and type(r.get("writes")) is int]
    top = max(max(named, default=0), max(seqs, default=0))
    if top > 10 * len(records) + 1000:     # a forged seq must not make a list of a billion numbers
        return sorted(set(range(1, 1001)) - seqs) + [top]
    return sorted(set(range(1, top + 1)) - seqs)


def blocking(problems):
    """The problems that refuse a revert without --force: all but a torn last
    record (a crash mid-append announced a write that never started)."""
    return [p for p in problems if "torn last record" not in p]
