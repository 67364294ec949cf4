"""What one read costs (issue #38): openat2 through ctypes converts no argument
per call, a file is read with one os.read of its size and a byte (not into a
64 KiB buffer cut down), and read_texts, which reads a directory's files in
its own loop, still refuses a path among its names. What each read gives is
held elsewhere (tests/test_fast_paths.py, tests/test_hostile_root.py,
tests/test_read_bounds.py)."""
import ctypes
import errno
import os

import pytest

from numatune.root import Root
from numatune.rootfs import confine


def _tree(tmp_path):
    (tmp_path / "sys/x").mkdir(parents=True)
    (tmp_path / "sys/x/a").write_text("[mq-deadline] none\n")
    (tmp_path / "sys/x/b").write_text("1\n")
    (tmp_path / "sys/x/empty").write_text("")
    return tmp_path


@pytest.fixture
def openat2():
    if confine._openat2(os.open("/", os.O_PATH | os.O_CLOEXEC), ".", os.O_PATH) is None:
        pytest.skip("this kernel has no openat2")
    return confine._openat2


def test_openat2_converts_no_argument_per_call(tmp_path, openat2):
    root = Root(str(_tree(tmp_path)))
    assert root.read_text("/sys/x/a") == "[mq-deadline] none\n"
    # A declared argument list costs a conversion per argument per call (18,000 calls a plan).
    assert openat2.syscall.argtypes is None
    fd = openat2(os.open(str(tmp_path), os.O_PATH | os.O_CLOEXEC), "sys/x/b", os.O_RDONLY)
    try:
        assert os.read(fd, 10) == b"1\n"
    finally:
        os.close(fd)
    with pytest.raises(FileNotFoundError) as missing:
        openat2(os.open(str(tmp_path), os.O_PATH | os.O_CLOEXEC), "sys/x/missing", os.O_RDONLY)
    assert missing.value.filename == "sys/x/missing"


def test_openat2_retries_a_lookup_a_rename_raced(tmp_path, openat2, monkeypatch):
    _tree(tmp_path)
    real, calls = openat2.syscall, []

    def racing(*args):
        calls.append(args)
        if len(calls) <= 2:
            ctypes.set_errno(errno.EAGAIN)
            return -1
        return real(*args)
    monkeypatch.setattr(openat2, "syscall", racing)
    fd = openat2(os.open(str(tmp_path), os.O_PATH | os.O_CLOEXEC), "sys/x/b", os.O_RDONLY)
    try:
        assert os.read(fd, 10) == b"1\n" and len(calls) == 3
    finally:
        os.close(fd)


@pytest.mark.parametrize("live", [False, True], ids=["root", "live"])
def test_a_file_is_read_with_one_read_of_its_size_and_a_byte(tmp_path, monkeypatch, live):
    _tree(tmp_path)
    r, base = (Root("/"), str(tmp_path)) if live else (Root(str(tmp_path)), "")
    asked, real = [], os.read

    def reading(fd, n):
        asked.append(n)
        return real(fd, n)
    monkeypatch.setattr(os, "read", reading)
    assert r.read_texts(base + "/sys/x", ["a", "b", "empty"]) == {"a": "[mq-deadline] none\n", "b": "1\n",
                                                                  "empty": ""}
    assert r.read_text(base + "/sys/x/a") == "[mq-deadline] none\n"
    assert r.read_value_alone(base + "/sys/x/b") == "1"
    # An empty file says nothing of what it may hold (procfs says 0): it gets the usual first read.
    assert asked == [20, 3, 65536, 20, 3]


def test_a_file_holding_more_than_its_size_says_is_read_to_its_end(tmp_path, monkeypatch):
    # A file that grew since its fstat, or one whose size is a guess: the read of its size
    # and a byte comes back full, and the rest follows, as procfs tables do.
    _tree(tmp_path)
    r = Root(str(tmp_path))
    real = os.fstat

    def smaller(fd):
        st = list(real(fd))
        st[6] = 2 if st[6] > 2 else st[6]
        return os.stat_result(st)
    monkeypatch.setattr(os, "fstat", smaller)
    assert r.read_texts("/sys/x", ["a", "b"]) == {"a": "[mq-deadline] none\n", "b": "1\n"}
    assert r.read_text("/sys/x/a") == "[mq-deadline] none\n"


@pytest.mark.parametrize("name", ["a/b", "..", ".", ""])
@pytest.mark.parametrize("directory", ["/sys/x", "/sys/missing"])
def test_read_texts_takes_names_not_paths(tmp_path, name, directory):
    r = Root(str(_tree(tmp_path)))
    with pytest.raises(ValueError, match="names in the directory"):
        r.read_texts(directory, ["a", name])
