"""Text output: the fast path for short lines must print exactly what textwrap would."""
import textwrap

from hypothesis import given
from hypothesis import strategies as st

from numatune.render import _wrap


@given(st.text(alphabet=st.sampled_from("ab  \t\n.-="), max_size=120), st.sampled_from(["", "  ", "      "]))
def test_wrap_matches_textwrap(text, indent):
    assert _wrap(text, indent) == textwrap.fill(text, width=79, initial_indent=indent, subsequent_indent=indent)
