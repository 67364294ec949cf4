"""Which NetworkManager keyfile names a NIC: one index of the keyfiles' interface-name
lines, built once per plan, answers as each NIC's own regular expression did (#38: 256
NICs compiled 256 expressions, about 15 ms of a many-NIC plan)."""
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from numatune.families.network import keptin


class _Keyfiles:
    """A root holding only the given keyfiles, in listing order."""

    def __init__(self, texts):
        self.files = {"f%02d.nmconnection" % i: t for i, t in enumerate(texts)}

    def listdir(self, path):
        return sorted(self.files) if path == keptin.PERSIST_NM else []

    def read_text(self, path, default=None):
        return self.files.get(path.rpartition("/")[2], default)


def _by_regex(texts, name):
    """What persistence() did before the index: each keyfile searched with the NIC's own expression."""
    said = re.compile(r"(?m)^\s*interface-name\s*=\s*%s\s*$" % re.escape(name))
    return next((("%s/f%02d.nmconnection" % (keptin.PERSIST_NM, i), t) for i, t in enumerate(texts)
                 if said.search(t)), None)


# Whitespace of every kind \s knows (a newline inside "key = value" too), names, their look-alikes.
_BITS = ["interface-name", "interface-name=", "=", " ", "\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85",
         "\u2028", "\xa0", "eth0", "eth1", "eth0.10", "eth", "0", "a+b", "[connection]", "#", "id=x", "-", "\\"]
_NAMES = ["eth0", "eth1", "eth0.10", "eth", "0", "a+b", "=", "-", "\\", "interface-name", "x", "", " eth0",
          "eth0\n", "a b", "\xa0"]


@settings(max_examples=400)
@given(st.lists(st.lists(st.sampled_from(_BITS), max_size=14).map("".join), max_size=4),
       st.sampled_from(_NAMES) | st.text(max_size=4))
def test_the_keyfile_index_answers_as_each_nics_expression(texts, name):
    config = keptin.ConfigFiles(_Keyfiles(texts))
    assert config.keyfile_of(name) == _by_regex(texts, name)
    # Every name the files hold, too: the first file in listing order wins.
    for token in set(w for t in texts for w in t.split()):
        assert config.keyfile_of(token) == _by_regex(texts, token), token


def test_a_nics_keyfile_is_found_without_compiling_an_expression(monkeypatch):
    texts = ["[connection]\ninterface-name=eth%d\n" % i for i in range(8)]
    config = keptin.ConfigFiles(_Keyfiles(texts))
    monkeypatch.setattr(keptin.re, "compile", lambda *a, **k: (_ for _ in ()).throw(AssertionError("compiled")))
    for i in range(8):
        got = keptin.persistence(_Keyfiles(texts), "eth%d" % i, config=config)
        assert (got["kind"], got["text"]) == ("nm", texts[i])
