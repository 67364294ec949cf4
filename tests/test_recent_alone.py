"""Verify's read-back reads a file written alone in its directory by its
whole path (issue #38): an IRQ's affinity, a disk's queue_depth, a C-state's
disable (9,000 of a giant host's 14,000 directories written) cost a
directory open, the file's open and the directory's close each; one
confined open does. Each text is what read_text gives, a link at the name
still resolved inside the root."""
import os

import pytest

from conftest import write
from numatune.apply.recent import Recent
from numatune.errors import ExhaustedError
from numatune.root import Root
from numatune.rootfs import confine

ALONE = ["/proc/irq/%d/smp_affinity_list" % n for n in range(4)]
QUEUE = ["/sys/block/sda/queue/" + n for n in ("nr_requests", "read_ahead_kb", "nomerges")]


@pytest.fixture
def tree(tmp_path):
    for i, path in enumerate(ALONE + QUEUE):
        write(tmp_path, path, "%d\n" % i)
    write(tmp_path, "elsewhere/value", "outside\n")
    return tmp_path


def _directory_opens(monkeypatch):
    """The directories opened below the root, by their whole path (openat2) or by name from their parent."""
    opened = []
    real, real_open = confine._Openat2.__call__, os.open

    def call(self, dirfd, path, flags, mode=0):
        if flags & os.O_DIRECTORY and path != ".":     # the root itself, opened once
            opened.append("/" + path)
        return real(self, dirfd, path, flags, mode)

    def open_(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if flags & os.O_DIRECTORY and kwargs.get("dir_fd") is not None:
            opened.append(os.readlink("/proc/self/fd/%d" % fd))
        return fd
    monkeypatch.setattr(confine._Openat2, "__call__", call)
    monkeypatch.setattr(os, "open", open_)
    return opened


def test_a_file_alone_in_its_directory_is_read_without_opening_the_directory(tree, monkeypatch):
    root = Root(str(tree))
    os.close(root.open("/proc", os.O_PATH | os.O_DIRECTORY))    # whether the kernel confines an open (openat2)
    if confine._Openat2.works is not True:
        pytest.skip("no openat2 here: every read opens its directories by name, from the root down")
    opened = _directory_opens(monkeypatch)
    with Recent(root, ALONE + QUEUE + ["/proc/irq/9/smp_affinity_list"]) as recent:
        texts = recent.texts
    assert [p for p in opened if "/proc/irq/" in p] == []
    assert opened[-1].endswith("/sys/block/sda/queue")
    assert texts == dict({p: Root(str(tree)).read_text(p) for p in ALONE + QUEUE},
                         **{"/proc/irq/9/smp_affinity_list": None})


def test_a_link_at_the_name_resolves_inside_the_root(tree):
    target = tree / "proc/irq/0/smp_affinity_list"
    target.unlink()
    os.symlink("/elsewhere/value", target)      # absolute: the root's /elsewhere, not the machine's
    root = Root(str(tree))
    with Recent(root, ALONE[:1]) as recent:
        assert recent.texts == {ALONE[0]: "outside\n"}
        assert root.read_text(ALONE[0]) == "outside\n"


def test_out_of_descriptors_is_said_not_read_as_missing(tree, monkeypatch):
    import errno
    root = Root(str(tree))

    def exhausted(path, flags):
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE), path)
    monkeypatch.setattr(root, "open_named", exhausted)
    with pytest.raises(ExhaustedError):
        Recent(root, ALONE[:1])
