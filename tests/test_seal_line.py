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
