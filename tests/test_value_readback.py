"""A value write on a copied tree is not read back at once (issue #38): a
plain file that took every byte holds what was written, so what a read would
give is known (35,000 reads on a giant host's apply; verify still reads each
write back at the end). On the live root, and after a short write, the value
is read back as before: the kernel may take less than asked."""
from conftest import write
from numatune.apply import value
from numatune.root import Root


def _counting_reads(monkeypatch, root):
    reads = []
    for name in ("read_text", "read_bytes"):
        real = getattr(root, name)
        monkeypatch.setattr(root, name, lambda path, *a, _real=real, **k: reads.append(path) or _real(path, *a, **k))
    return reads


def test_a_copied_value_file_is_not_read_back_after_its_write(tmp_path, monkeypatch):
    write(tmp_path, "proc/sys/vm/swappiness", "60\n")
    root = Root(str(tmp_path))
    op = {"kind": "value", "path": "/proc/sys/vm/swappiness", "format": "words", "before": "60", "after": "10"}
    reads = _counting_reads(monkeypatch, root)
    value.perform(root, op)
    assert reads == [] and op["after"] == "10" and "asked" not in op
    assert (tmp_path / "proc/sys/vm/swappiness").read_text() == "10\n"


def test_a_short_write_is_read_back(tmp_path, monkeypatch):
    write(tmp_path, "proc/sys/vm/swappiness", "60\n")
    root = Root(str(tmp_path))
    op = {"kind": "value", "path": "/proc/sys/vm/swappiness", "format": "words", "before": "60", "after": "100"}
    real = value.os.write
    monkeypatch.setattr(value.os, "write", lambda fd, data: real(fd, data[:1]))
    reads = _counting_reads(monkeypatch, root)
    value.perform(root, op)
    assert reads == ["/proc/sys/vm/swappiness"] and op["after"] == "1" and op["asked"] == "100"


def test_the_live_root_reads_the_value_back(tmp_path, monkeypatch):
    write(tmp_path, "proc/sys/vm/swappiness", "60\n")
    root = Root(str(tmp_path))
    root.is_live = True
    monkeypatch.setattr(value.root_write, "open_value", lambda r, path: value.os.open(
        str(tmp_path) + path, value.os.O_WRONLY | value.os.O_TRUNC))
    monkeypatch.setattr(root, "read_text", lambda path, *a, **k: "42\n")   # the kernel took less
    op = {"kind": "value", "path": "/proc/sys/vm/swappiness", "format": "words", "before": "60", "after": "100"}
    value.perform(root, op)
    assert op["after"] == "42" and op["asked"] == "100"
