"""A directory reached through a link whose real path Root does not know
(sysfs: every SCSI disk's ``device -> ../..`` under ``/sys/block/sdX``, itself
a link): once a name has been such a link, the same name in the next
directory is resolved whole at once (one confined open), not tried by name
first (a failed open, a readlink and a raised OSError per disk). What it
reads, and where a link may lead, stay as they were."""
import os

from numatune.families.storage.facts import _normjoin
from numatune.root import Root
from numatune.rootfs import reads

DISKS = ("sda", "sdb", "sdc", "sdd")


def _host(tmp_path):
    """/sys/block/sdX -> the disk's real directory, its device -> ../.. (the SCSI device)."""
    for i, disk in enumerate(DISKS):
        scsi = tmp_path / ("sys/devices/host0/0:0:0:%d" % i)
        (scsi / "block" / disk).mkdir(parents=True)
        (scsi / "vendor").write_text("3PARdata%d\n" % i)
        (scsi / "block" / disk / "size").write_text("%d\n" % i)
        os.symlink("../..", str(scsi / "block" / disk / "device"))
    (tmp_path / "sys/block").mkdir(parents=True)
    for i, disk in enumerate(DISKS):
        os.symlink("../devices/host0/0:0:0:%d/block/%s" % (i, disk), str(tmp_path / "sys/block" / disk))
    return tmp_path


def test_a_name_that_was_a_link_is_resolved_whole_the_next_time(tmp_path, monkeypatch):
    root = Root(str(_host(tmp_path)))
    root.exists("/sys")     # openat2 asked once (the plan's first reads do it)
    links = []
    real_readlink = os.readlink

    def readlink(*args, **kwargs):
        links.append(args[0])
        return real_readlink(*args, **kwargs)
    monkeypatch.setattr(reads.os, "readlink", readlink)
    for i, disk in enumerate(DISKS):
        # As the storage facts read a disk: its own directory (kept), then device/ from it.
        assert root.read_texts("/sys/block/" + disk, ["size"]) == {"size": "%d\n" % i}
        assert root.read_texts("/sys/block/%s/device" % disk, ["vendor"]) == {"vendor": "3PARdata%d\n" % i}
    assert links == ["device"], links   # the first disk's only


def test_a_known_link_name_still_resolves_inside_the_root(tmp_path):
    host = _host(tmp_path / "root")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "vendor").write_text("outside\n")
    (host / "etc").mkdir()
    (host / "etc" / "vendor").write_text("inside\n")
    root = Root(str(host))
    root.exists("/sys")
    assert root.read_texts("/sys/block/sda", ["size"]) == {"size": "0\n"}
    assert root.read_texts("/sys/block/sda/device", ["vendor"]) == {"vendor": "3PARdata0\n"}
    # The next disk's device leads out of the root, absolutely and by climbing: both stay inside it.
    for disk, target in (("sdb", "/etc"), ("sdc", "../../../../../../../../../../etc")):
        link = host / ("sys/devices/host0/0:0:0:%d/block/%s/device" % (DISKS.index(disk), disk))
        link.unlink()
        os.symlink(target, str(link))
        assert root.read_texts("/sys/block/" + disk, ["size"])["size"]
        assert root.read_texts("/sys/block/%s/device" % disk, ["vendor"]) == {"vendor": "inside\n"}


def test_normjoin_is_normpath_of_join():
    parts = ["", "/", "a", "/a", "a/", "/a/", "//a", "../..", "../../x/../y", "/sys/dev/block", ".", "..",
             "/x/./y//z/"]
    for base in parts:
        for link in parts:
            assert _normjoin(base, link) == os.path.normpath(os.path.join(base, link)), (base, link)
