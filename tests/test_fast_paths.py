"""The fast paths the giant-host benchmark asked for give exactly what the
plain ones did: Root's raw reads against open(), read_texts against
read_text, Change.to_json against
asdict() (numatune.model.records's, held to dataclasses' by tests/test_record.py) with each
write's JSON written out."""
import json
import os

import pytest

from numatune.errors import HostError
from numatune.model import Change, Write
from numatune.model.records import asdict
from numatune.root import Root

CASES = {
    "plain": b"[mq-deadline] kyber bfq none\n",
    "empty": b"",
    "crlf": b"a = 1\r\nb = 2\r\nold mac\rline\n",
    "nul-padded": b"3PARdata\x00\x00\x00\n",
    "latin1": b"caf\xe9 \xff\n",
    "utf8": "r\u00e9sum\u00e9 \u2713\n".encode(),
    # Larger than the first read: the rest must follow, as with /proc/interrupts.
    "big": b"".join(b"%6d: %s\n" % (i, b"0 " * 40) for i in range(4000)),
}


@pytest.fixture
def root(tmp_path):
    for name, data in CASES.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "dir").mkdir()
    os.symlink("plain", tmp_path / "link")
    return tmp_path


@pytest.mark.parametrize("name", sorted(CASES) + ["link"])
def test_reads_match_open(root, name):
    r = Root(str(root))
    with open(root / name, encoding="utf-8", errors="surrogateescape") as f:
        assert r.read_text("/" + name) == f.read()
    with open(root / name, "rb") as f:
        assert r.read_bytes("/" + name) == f.read()


def test_big_file_is_read_whole(root):
    assert len(Root(str(root)).read_bytes("/big")) == len(CASES["big"]) > 65536


@pytest.mark.parametrize("path", ["/missing", "/dir", "/plain/below"])
def test_unreadable_gives_default(root, path):
    r = Root(str(root))
    assert r.read_text(path, "D") == "D"
    assert r.read_bytes(path, "D") == "D"


def test_refused_read_gives_default_text_and_raises_bytes():
    # A file that opens but refuses read(2) (EIO here; EINVAL for some sysfs
    # attributes): "not available" as text, an error for byte-exact readers.
    r = Root("/")
    assert r.read_text("/proc/self/mem", "D") == "D"
    with pytest.raises(OSError):
        r.read_bytes("/proc/self/mem")


def test_real_sysfs_attribute():
    # The real kernel's sysfs: one page at most, then end of file.
    r = Root("/")
    with open("/sys/devices/system/cpu/online", encoding="utf-8") as f:
        assert r.read_text("/sys/devices/system/cpu/online") == f.read()
    with open("/proc/self/status", encoding="utf-8") as f:
        want = f.read().splitlines()[0]
    assert r.read_text("/proc/self/status").splitlines()[0] == want


@pytest.mark.parametrize("live", [False, True], ids=["root", "live"])
def test_read_texts_matches_read_text_file_by_file(root, live):
    """One directory resolved once, its files opened by name: the same text as
    read_text gives each, under --root and on the live / alike."""
    names = sorted(CASES) + ["link", "dir", "missing"]
    r, base = (Root("/"), str(root)) if live else (Root(str(root)), "")
    assert r.read_texts(base + "/", names) == {n: r.read_text("%s/%s" % (base, n)) for n in names}
    assert r.read_texts(base + "/missing", ["a"]) == {"a": None}


@pytest.mark.parametrize("live", [False, True], ids=["root", "live"])
def test_read_values_matches_read_value_file_by_file(root, live):
    """The cpu and topology facts read a directory's one-value files together:
    each as read_value gives it (NUL padding and blanks stripped, None when
    missing or not a file)."""
    names = sorted(CASES) + ["link", "dir", "missing"]
    r, base = (Root("/"), str(root)) if live else (Root(str(root)), "")
    assert r.read_values(base + "/", names) == {n: r.read_value("%s/%s" % (base, n)) for n in names}
    assert r.read_values(base + "/missing", ["a"]) == {"a": None}


def test_read_texts_refuses_a_file_past_its_limit_as_read_text_does(tmp_path):
    # A directory's files are read without a path built per file (readfile.read_named): the
    # limit and the one-line refusal are read_fd's, file by file.
    (tmp_path / "sys/x").mkdir(parents=True)
    (tmp_path / "sys/x/big").write_bytes(b"1" * (1024 * 1024 + 1))
    (tmp_path / "sys/x/small").write_bytes(b"1\n")
    r = Root(str(tmp_path))
    for read in (lambda: r.read_text("/sys/x/big"), lambda: r.read_texts("/sys/x", ["small", "big"])):
        with pytest.raises(HostError, match="/sys/x/big holds more than 1 MiB"):
            read()
    assert r.read_texts("/sys/x", ["small"]) == {"small": "1\n"}


def test_read_texts_of_real_sysfs():
    r = Root("/")
    names = ["online", "possible", "present", "no-such-attribute"]
    got = r.read_texts("/sys/devices/system/cpu", names)
    assert got == {n: r.read_text("/sys/devices/system/cpu/" + n) for n in names} and got["online"]


def test_change_to_json_is_asdict_with_each_writes_own_form():
    change = Change(id="block.live:sda:nr_requests", area="storage", target="sda", current="256", desired="512",
                    scope="live", action="write", why="w", reboot_required=True, risk="medium", rule="block[0]",
                    needs_confirm=True,
                    writes=[Write(kind="value", path="/sys/block/sda/queue/nr_requests", value="512"),
                            Write(kind="file", path="/etc/x", editor="sysctl_set", args={"key": "k", "v": [1]}),
                            Write(kind="command", path="/", argv=["multipathd", "reconfigure"], files=["/f"]),
                            Write(kind="blockattr", path="/sys/block/sda/device/queue_depth", value="128",
                                  args={"device": "sda"})])
    want = asdict(change)
    # Each write in its kind's own form, spelled out (not built with
    # Write.to_json, which is what is under test): value and file writes
    # carry only their fields, a kind the model does not know keeps them all.
    want["writes"] = [
        {"kind": "value", "path": "/sys/block/sda/queue/nr_requests", "value": "512", "format": "plain"},
        {"kind": "file", "path": "/etc/x", "editor": "sysctl_set", "args": {"key": "k", "v": [1]}},
        {"kind": "command", "path": "/", "argv": ["multipathd", "reconfigure"], "files": ["/f"]},
        {"kind": "blockattr", "path": "/sys/block/sda/device/queue_depth", "value": "128", "format": "plain",
         "editor": None, "args": {"device": "sda"}, "argv": [], "files": []},
    ]
    got = change.to_json()
    assert got == want
    assert list(got) == list(want)  # the same key order in saved plans and journals
    assert json.dumps(got) == json.dumps(want)
    assert Change.from_json(json.loads(json.dumps(got))) == change


def test_a_cli_run_lets_the_cyclic_gc_run_rarely(tmp_path, capsys):
    """A plan's million acyclic objects are not walked by frequent GC passes
    (cli._few_collections); the process's thresholds are put back after."""
    import gc
    from numatune import cli
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        try:
            cli.main(["history", "--root", str(tmp_path)])
        except SystemExit:
            pass
        assert gc.get_threshold()[0] >= 100000
    finally:
        gc.set_threshold(*before)
