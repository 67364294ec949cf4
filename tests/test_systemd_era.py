"""Which systemd a root runs, from file names only (.link files need 209)."""
import glob
import re

import pytest

from conftest import write
from numatune.families.network import era
from numatune.root import Root


def test_version_from_libsystemd_shared_the_newest_wins(tmp_path):
    write(tmp_path, "/usr/lib64/systemd/libsystemd-shared-239.so", "")
    write(tmp_path, "/usr/lib64/systemd/libsystemd-shared-252.so", "")
    got = era.read(Root(str(tmp_path)), {})
    assert (got["version"], got["link"]) == (252, True)


def test_fedora_style_name_with_release(tmp_path):
    write(tmp_path, "/usr/lib64/systemd/libsystemd-shared-255.13-1.fc40.so", "")
    assert era.read(Root(str(tmp_path)), {})["version"] == 255


def test_rhel70_docs_directory_says_208(tmp_path):
    write(tmp_path, "/usr/share/doc/systemd-208/LICENSE.GPL2", "")
    write(tmp_path, "/usr/share/doc/systemd-sysv/copyright", "")  # not a version
    got = era.read(Root(str(tmp_path)), {})
    assert (got["version"], got["link"]) == (208, False)
    assert "208" in era.describe(got)


def test_a_snapshot_of_rhel70_knows_208_from_its_release(tmp_path):
    got = era.read(Root(str(tmp_path)), {"id": "rhel", "version": "7.0", "name": "Red Hat Enterprise Linux "
                                                                                "Server release 7.0 (Maipo)"})
    assert (got["version"], got["link"]) == (208, False) and "release 7.0" in era.describe(got)


def test_default_link_file_means_209_or_later(tmp_path):
    write(tmp_path, "/usr/lib/systemd/network/99-default.link", "[Link]\n")
    got = era.read(Root(str(tmp_path)), {})
    assert (got["version"], got["link"]) == (None, True)


def test_release_6_has_no_systemd_and_nothing_known_is_unknown(tmp_path):
    rhel6 = {"id": "rhel", "version": "6.5", "name": "Red Hat Enterprise Linux Server release 6.5"}
    assert era.read(Root(str(tmp_path)), rhel6)["link"] is False
    got = era.read(Root(str(tmp_path)), {"id": "rhel", "version": "7.9"})
    assert got["link"] is None and era.describe(got) == "systemd version unknown"


def test_this_vm(tmp_path):
    """The real root: the version its libsystemd-shared file names."""
    found = [p for d in era.SHARED_DIRS for p in glob.glob(d + "/libsystemd-shared-*.so")]
    if not found:
        pytest.skip("no libsystemd-shared-NNN.so on this host")
    want = max(int(re.search(r"libsystemd-shared-(\d+)", p).group(1)) for p in found)
    assert era.read(Root("/"), {})["version"] == want
