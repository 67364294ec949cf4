"""A journal line is encoded once (numatune/apply/seal.py), its checksum put
in its sorted place, and the type of most records written without an encoder
run: whatever the record, the bytes are those of json.dumps of the sealed
record with its keys sorted, which is what a reader checks them against."""
import json

from hypothesis import given, settings, strategies as st

from numatune.apply.seal import intact, line, sealed

TEXT = st.text(max_size=12)
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                      max_leaves=8)
RECORDS = st.dictionaries(st.sampled_from(["t", "seq", "seqs", "op", "change", "after", "u", "a", "z"]) | TEXT,
                          VALUES, max_size=6)


@settings(max_examples=300, deadline=None)
@given(RECORDS, st.one_of(TEXT, VALUES))
def test_a_line_is_json_dumps_of_the_sealed_record(record, kind):
    record = dict(record, t=kind)
    raw = line(record)
    assert raw == (json.dumps(sealed(record), sort_keys=True) + "\n").encode()
    assert intact(raw.rstrip(b"\n"), json.loads(raw))


FIELDS = st.sampled_from(["kind", "path", "format", "before", "after", "raw", "asked", "seq"])
VALUE_OPS = st.fixed_dictionaries(
    {"kind": st.sampled_from(["value", "file"]) | VALUES, "path": TEXT | VALUES, "format": TEXT,
     "before": TEXT | VALUES, "after": TEXT},
    optional={"raw": TEXT | VALUES, "asked": TEXT})
ITEMS = st.fixed_dictionaries({"seq": st.integers() | st.booleans(), "change": TEXT | VALUES,
                               "op": VALUE_OPS | st.dictionaries(FIELDS, VALUES, max_size=6)},
                              optional={"t": TEXT})


@settings(max_examples=400, deadline=None)
@given(st.lists(ITEMS, max_size=4), st.integers() | st.booleans())
def test_an_intents_line_is_json_dumps_of_the_sealed_record(items, seq):
    # A value write's intent is put together from its strings (seal._intent_text): the same bytes,
    # whatever the op holds (a "raw", a value that is not a string, another kind, a key too many).
    record = {"t": "intents", "seq": seq, "intents": items}
    raw = line(record)
    assert raw == (json.dumps(sealed(record), sort_keys=True) + "\n").encode()
    assert intact(raw.rstrip(b"\n"), json.loads(raw))


def test_a_value_intent_is_not_run_through_the_encoder(monkeypatch):
    from numatune.apply import seal
    encoded = []
    monkeypatch.setattr(seal, "_ENCODE", lambda obj, real=seal._ENCODE: encoded.append(obj) or real(obj))
    op = {"kind": "value", "path": "/sys/block/sda/queue/nr_requests", "format": "plain", "before": "64",
          "after": "128"}
    items = [{"seq": 7, "change": "c", "op": op}, {"seq": 8, "change": "d", "op": dict(op, raw="NjQ=")}]
    record = {"t": "intents", "seq": 7, "intents": items}
    assert line(record) == (json.dumps(sealed(record), sort_keys=True) + "\n").encode()
    assert encoded == []
