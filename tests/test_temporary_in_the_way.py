"""A directory at the name of a whole-file write's temporary (#39): apply
fails, rolls back, and says the truth: nothing changed, the whole path of
what is in the way and how to remove it; no "ROLLBACK FAILED" for a target
that never changed, and `history` says rolled back, not partly reverted."""
import os

import pytest

import fakehost
from conftest import STATE, tree_digest, write
from numatune.apply.root_write import tmp_name

FILES = ["/etc/sysctl.d/90-numatune.conf", "/etc/sysctl.d/99-oracle-database-preinstall-19c-sysctl.conf",
         "/boot/grub2/grubenv", "/etc/default/grub"]


@pytest.mark.parametrize("target", FILES)
def test_a_directory_at_a_temporary_name_rolls_back_and_says_nothing_changed(cli, tmp_path, target):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    parent, name = target.rsplit("/", 1)
    in_the_way = "%s%s/%s" % (root, parent, tmp_name(name))
    os.makedirs(in_the_way)
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 1, (out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "ROLLBACK FAILED" not in err and "partly" not in err, err
    assert "rolled back" in err and ": nothing changed" in err, err
    assert "rmdir %s" % in_the_way in err, err
    assert tree_digest(root) == before
    status, out, _ = cli("history", "--root", root)
    assert "rolled back" in out and "partly" not in out, out
    [journal] = (root / STATE / "journal").glob("*.jsonl")
    assert b'"failed"' not in journal.read_bytes().replace(b'"failed": 0', b"")
