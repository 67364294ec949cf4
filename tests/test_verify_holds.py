"""Verify judges a plain value read back as its text and a newline from that
text (issue #38), as value.current_matches judges it: the same answer for
every text, without the calls around it for the 35,000 values of a giant
host; any other text, format or kind is asked of its kind as before."""
from conftest import write
from numatune.apply import value, verify
from numatune.apply.recent import Recent
from numatune.root import Root

# (format, the file's text, the value written): what current_matches says of each must be what verify says.
CASES = [("plain", "128\n", "128"), ("plain", "128\n", "64"), ("plain", " 64\n", " 64"), ("plain", "64 \n", "64 "),
         ("plain", "64", "64"), ("plain", "64\n\n", "64"), ("plain", "\n", ""), ("plain", "64\n", "64\n"),
         ("bracket", "always [never]\n", "never"), ("words", "a  b\n", "a b"), ("plain", None, "1")]


def test_a_value_read_back_is_judged_as_its_kind_judges_it(tmp_path, monkeypatch):
    ops = []
    for i, (form, text, after) in enumerate(CASES):
        path = "/sys/x/%d/v" % i
        if text is not None:
            write(tmp_path, path, text)
        ops.append({"kind": "value", "path": path, "format": form, "before": "0", "after": after})
    root = Root(str(tmp_path))
    asked, real = [], value.current_matches

    def current_matches(root_, op, side):
        asked.append(op["path"])
        return real(root_, op, side)
    monkeypatch.setattr(value, "current_matches", current_matches)
    with Recent(root, [op["path"] for op in ops]) as recent:
        said = [verify._holds(root, op, recent.texts) for op in ops]
        del asked[:]
        kinds_say = [value.current_matches(root, op, "after") for op in ops]
        del asked[:]
        said_again = [verify._holds(root, op, recent.texts) for op in ops]
    assert said == kinds_say == said_again
    assert said[:3] == [True, False, False]
    # Only what is not a plain value read back as its text and a newline was asked of its kind.
    shortcut = {op["path"] for op, (form, text, after) in zip(ops, CASES) if form == "plain" and text == after + "\n"}
    assert set(asked) == {op["path"] for op in ops} - shortcut and len(shortcut) == 4
