"""Root.forget closes the directory descriptors kept open for reads: a close
that reports an error (EIO, ENOSPC under fault injection) must not end a
command that already did its work (the fault campaign found a revert that
restored everything, then died with a traceback here)."""
import errno
import os

from numatune.root import Root
from numatune.rootfs import reads


def test_a_failing_close_of_a_kept_directory_is_not_an_error(tmp_path, monkeypatch):
    (tmp_path / "etc" / "sysctl.d").mkdir(parents=True)
    (tmp_path / "etc" / "sysctl.d" / "a.conf").write_text("vm.swappiness = 10\n")
    root = Root(str(tmp_path))
    assert root.read_texts("/etc/sysctl.d", ["a.conf"]) == {"a.conf": "vm.swappiness = 10\n"}
    real_close, closed = os.close, []

    def close(fd):
        closed.append(fd)
        real_close(fd)
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(reads.os, "close", close)
    root.forget()
    assert closed, "no directory was kept open: the test tests nothing"
    monkeypatch.setattr(reads.os, "close", real_close)
    # And the root still reads: the directories are resolved again.
    assert root.read_texts("/etc/sysctl.d", ["a.conf"]) == {"a.conf": "vm.swappiness = 10\n"}
