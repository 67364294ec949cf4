"""Text output: the fast path for short lines must print exactly what textwrap would."""
import re
import textwrap

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from numatune.report.console import _wrap


@given(st.text(alphabet=st.sampled_from("ab  \t\n.-="), max_size=120), st.sampled_from(["", "  ", "      "]))
def test_wrap_matches_textwrap(text, indent):
    assert _wrap(text, indent) == textwrap.fill(text, width=79, initial_indent=indent, subsequent_indent=indent)


@given(st.lists(st.sampled_from(["a", "word", "Longer,", "x" * 30, "x" * 70, " ", "  ", "-", "--", "\t", "\n",
                                   "\u00a0", "\u00e9t\u00e9", "=", "."]), max_size=40).map("".join),
       st.sampled_from([("", ""), ("  INFO     ", " " * 11), ("    ", "    "), ("x" * 20, "")]),
       st.sampled_from([79, 30]))
def test_fill_matches_textwrap(text, indents, width):
    """report.fill: plain prose wrapped without textwrap, exactly as textwrap wraps it (findings, #38).
    (No indent wider than the line: textwrap itself can loop forever on one.)"""
    from numatune.report.fill import fill
    assert fill(text, width, *indents) == textwrap.fill(text, width=width, initial_indent=indents[0],
                                                        subsequent_indent=indents[1])


@given(st.lists(st.sampled_from(["ab", "local", "-", "--", "node", "x-", "-y", "1-2", "e-f-gh", "_", "\u00e9", "\u00a0",
                                   ".", "!", "'", "x" * 25, " ", "  "]), max_size=30).map("".join),
       st.sampled_from([("", ""), ("  INFO     ", " " * 11), ("x" * 10, "")]), st.sampled_from([79, 30, 14]))
def test_fill_breaks_hyphenated_words_where_textwrap_does(text, indents, width):
    """Hyphens and em-dashes among letters, digits and punctuation: textwrap's break points, kept (#38)."""
    from numatune.report.fill import fill
    assert fill(text, width, *indents) == textwrap.fill(text, width=width, initial_indent=indents[0],
                                                        subsequent_indent=indents[1])


_WORDS = st.lists(st.sampled_from(["a", "ab", "word", "local", "-", "--", "node", "x-", "-y", "1-2", "e-f-gh", "_",
                                    ".", "!", "'", "(", "`", "=", "x" * 9]), min_size=1, max_size=4).map("".join)


@settings(max_examples=300)
@given(st.lists(_WORDS, min_size=1, max_size=14).map(" ".join),
       st.sampled_from([("", ""), ("  INFO     ", " " * 11), ("x" * 4, "")]), st.integers(10, 32))
def test_prose_lines_found_by_rfind_break_where_textwrap_does(text, indents, width):
    """ASCII prose whose words all fit a line: each line found with str.rfind, and a hyphenated word
    crossing a line's end broken after the chunks that fit, as textwrap breaks it (#38)."""
    from numatune.report import fill as fill_mod
    first, rest = width - len(indents[0]), width - len(indents[1])
    assume(max(map(len, text.split(" "))) <= min(first, rest))
    want = textwrap.fill(text, width=width, initial_indent=indents[0], subsequent_indent=indents[1])
    assert fill_mod.fill(text, width, *indents) == want
    assert fill_mod._lines(text, first, rest, *indents) == want


def test_hyphenated_prose_is_wrapped_without_textwrap(monkeypatch):
    """Most findings of a many-NIC plan say `local-node` or `numatune-boot`: they take the fast path (#38)."""
    from numatune.report import fill as fill_mod
    text = ("eth0: IRQ numbers change between boots, so irq_affinity local-node is set live, and `numatune boot` "
            "(numatune-boot.service, or the SysV script numatune-boot) plans it again -- at each boot")
    want = textwrap.fill(text, width=79, initial_indent="  INFO     ", subsequent_indent=" " * 11)
    monkeypatch.setattr(fill_mod.textwrap, "fill", lambda *a, **k: pytest.fail("went through textwrap"))
    assert fill_mod.fill(text, 79, "  INFO     ", " " * 11) == want


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


def test_to_json_gives_the_fields_in_order_and_nothing_else():
    """to_json copies the instance's dict when it holds just the fields (issue #38): same keys, same
    order as the record declares them, and an attribute set on the side never reaches the JSON."""
    from numatune.model.records import fields
    from numatune.model import Change, Compliant, Finding, Write
    items = [Change(id="a", area="storage", target="t", current="1", desired="2", scope="live", action="x",
                    writes=[Write(kind="value", path="/p", value="1")]),
             Finding(id="f", severity="info", message="m"), Compliant("c", "ok", "kernel")]
    for item in items:
        names = [f.name for f in fields(item)]
        assert list(item.to_json()) == names
        item.extra = "set on the side"
        data = item.to_json()
        assert list(data) == names and "extra" not in data
        data[names[0]] = "changed"
        assert getattr(item, names[0]) != "changed"


@settings(max_examples=400)
@given(st.text(alphabet=st.sampled_from("ab ~\x00\x07\t\n\r\x1b\x7f\x85\x9f\xa0\u00e9\udc80\ud800\ufffe\uffff"),
               max_size=30))
def test_clean_escapes_as_its_expression_does(text):
    """grouped.clean: printable ASCII is taken as clean without the search (#38); every other text is
    escaped exactly as the expression alone escapes it."""
    from numatune.report import grouped
    want = re.sub(grouped._CONTROL, grouped._escape, text)
    assert grouped.clean(text) == want
