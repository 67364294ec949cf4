"""A copied tree's value is journaled once (issue #38): its "raw" bytes go
in the intent only where restoring the value would not write them again.
Most sysfs values ("128\\n") are the value and a newline, so 35,000 intents
held each value twice, the second time in base64. Revert still leaves every
file byte for byte as it was."""
import pytest

from conftest import write
from numatune.apply import value
from numatune.apply.journal import load
from numatune.apply.transaction import apply_changes, revert
from numatune.model import Change, Write
from numatune.root import Root

# (file bytes, format, value written): whether the intent needs "raw" to put the bytes back.
CASES = [
    (b"128\n", None, "256", False),
    (b"mq-deadline\n", None, "none", False),
    (b"always madvise [never]\n", "bracket", "always", True),
    (b"128", None, "256", True),                # no newline: restore must not add one
    (b"128\n\n", None, "256", True),
    (b"  128\n", None, "256", True),            # padding the value strips
    (b"12\x008\n", None, "256", False),       # a NUL kept in the value: written back as read
    ("caf\u00e9\n".encode(), None, "x", True),  # not ASCII
    (b"\xff\n", None, "x", True),               # not UTF-8 (read with surrogateescape)
    (b"a\r\n", None, "x", True),
    (b"0 1\t2\n", "words", "3", True),
]


@pytest.mark.parametrize("data,fmt,after,needs_raw", CASES)
def test_raw_only_where_the_value_would_not_write_the_bytes_again(tmp_path, data, fmt, after, needs_raw):
    path = "/proc/sys/vm/x"
    write(tmp_path, path.lstrip("/"), "")
    (tmp_path / path.lstrip("/")).write_bytes(data)
    root = Root(str(tmp_path))
    w = Write(kind="value", path=path, value=after, format=fmt)
    change = Change(id="c", area="kernel", target="x", current="?", desired=after, scope="live",
                    action="write " + path, writes=[w])
    op = value.capture(root, w)
    assert ("raw" in op) == needs_raw
    del op
    txid, _ = apply_changes(root, [change])
    assert (tmp_path / path.lstrip("/")).read_bytes() == (after + "\n").encode()
    revert(root, load(root, txid))
    assert (tmp_path / path.lstrip("/")).read_bytes() == data
