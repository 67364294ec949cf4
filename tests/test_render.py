"""Text output: the fast path for short lines must print exactly what textwrap would."""
import textwrap

from hypothesis import given
from hypothesis import strategies as st

from numatune.report.console import _wrap


@given(st.text(alphabet=st.sampled_from("ab  \t\n.-="), max_size=120), st.sampled_from(["", "  ", "      "]))
def test_wrap_matches_textwrap(text, indent):
    assert _wrap(text, indent) == textwrap.fill(text, width=79, initial_indent=indent, subsequent_indent=indent)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                       max_size=3), max_leaves=10)


@given(st.dictionaries(st.text(max_size=4), json_values, max_size=4) | json_values)
def test_json_output_is_json_of_the_same_data(data):
    import json
    from numatune.report import jsonout
    assert json.loads(jsonout.dumps(data)) == data


@given(json_values | st.floats() | st.tuples(st.integers(), st.text(max_size=3)))
def test_each_json_item_is_what_json_dumps_writes(value):
    """jsonout encodes each item with one C encoder made once: the same text as json.dumps."""
    import json
    from numatune.report import jsonout
    assert jsonout._ENCODE(value) == json.dumps(value)


def test_a_value_json_cannot_encode_is_refused_as_json_refuses_it():
    import pytest
    from numatune.report import jsonout
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsonout.dumps({"changes": [object()]})
