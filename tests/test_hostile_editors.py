"""Config editors that lost data (#14 item 7): every byte an editor does not
own is kept, and a file it cannot parse is refused, not appended to."""
import json
import os
import shutil

import pytest

import fakehost
from conftest import tree_digest, write
from numatune.families.cpuset.cgconfig import CgconfigError, cgconfig_group, group_settings

SITE = """# site cgconfig
group ora {
    # owner set by the DBA team
    perm {
        task { uid = oracle; gid = dba; fperm = 770; }
        admin { uid = root; gid = root; dperm = 775; }
    }
    cpuset {
        cpus = "0-3";
        cpuset.mems = "0";
    }
    memory { memory.limit_in_bytes = 64G; }
}
group other { cpuset { cpuset.cpus = "4"; cpuset.mems = "1"; } }
"""


def test_editing_a_groups_mems_keeps_perm_comments_and_other_controllers():
    new = cgconfig_group(SITE, "ora", [["cpuset.cpus", "0-3"], ["cpuset.mems", "1"]])
    assert group_settings(new, "ora") == {"cpuset.cpus": "0-3", "cpuset.mems": "1", "uid": "oracle", "gid": "dba"}
    for kept in ("# owner set by the DBA team", "fperm = 770;", "dperm = 775;", "admin { uid = root; gid = root;",
                 "memory { memory.limit_in_bytes = 64G; }", 'group other { cpuset { cpuset.cpus = "4";'):
        assert kept in new
    # Only the one value changed: the rest of the file is the same bytes.
    back = new.replace('cpuset.mems = "1";', 'cpuset.mems = "0";', 1)
    assert back.replace('cpuset.cpus = "0-3";', 'cpus = "0-3";', 1) == SITE
    assert cgconfig_group(new, "ora", [["cpuset.cpus", "0-3"], ["cpuset.mems", "1"]]) == new


def test_an_owner_is_set_in_the_existing_perm_block():
    new = cgconfig_group(SITE, "ora", [["cpuset.mems", "0"]], uid="grid", gid="oinstall")
    assert group_settings(new, "ora")["uid"] == "grid" and "fperm = 770;" in new and "dperm = 775;" in new
    assert new.count("perm {") == 1 and new.count("task {") == 1


def test_a_group_whose_braces_never_close_is_refused():
    with pytest.raises(CgconfigError):
        cgconfig_group("group ora {\n    cpuset {\n        cpus = \"1\";\n", "ora", [["cpuset.mems", "0"]])


def test_an_unparsable_cgconfig_is_a_finding_and_is_not_written(cli, tmp_path):
    from test_cpuset import cgroup_v1
    root = fakehost.build(tmp_path / "root")
    cgroup_v1(root)
    write(root, "/etc/cgconfig.conf", "group ora {\n    cpuset {\n")
    pol = write(tmp_path, "p.toml", '[[cpuset]]\nname = "ora"\nnodes = [1]\npersist = "cgconfig"\n')
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--only", "cpu", "--format", "json")
    plan = json.loads(out)
    [f] = [f for f in plan["findings"] if f["id"] == "cpuset.cgconfig-unparsable:ora"]
    assert f["severity"] == "critical" and "no closing brace" in f["message"]
    assert not any("cgconfig" in w.get("path", "") for c in plan["changes"] for w in c["writes"])


def _grub_host(tmp_path):
    root = fakehost.build(tmp_path / "root")
    return root, write(tmp_path, "p.toml", '[kernel.cmdline]\nabsent = ["numa=off"]\n'
                                           'present = ["transparent_hugepage=never"]\n')


def test_a_random_bytes_default_grub_is_refused_not_appended_to(cli, tmp_path):
    root, pol = _grub_host(tmp_path)
    (root / "etc/default").mkdir(parents=True, exist_ok=True)
    junk = bytes(range(256)) * 4
    (root / "etc/default/grub").write_bytes(junk)
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--yes")
    assert "Traceback" not in err
    assert (root / "etc/default/grub").read_bytes() == junk
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--format", "json")
    messages = " ".join(f["message"] for f in json.loads(out)["findings"])
    assert "/etc/default/grub:1: binary or non-UTF-8 bytes" in messages


def test_an_unparsable_grub_cfg_is_not_reported_as_dropping_numa_off(cli, tmp_path):
    root, pol = _grub_host(tmp_path)
    shutil.rmtree(root / "boot/loader/entries")
    write(root, "/boot/grub2/grub.cfg", "\x00\x01 not a grub config {{{ numa=off\n")
    before = tree_digest(root)
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--format", "json")
    assert status == 0, err
    findings = json.loads(out)["findings"]
    text = " ".join(f["message"] for f in findings)
    assert "no longer has numa=off" not in text
    [f] = [f for f in findings if f["id"] == "cmdline.entries-unreadable:numa=off"]
    assert f["severity"] == "critical" and "unknown" in f["message"]
    assert tree_digest(root) == before
    assert os.path.exists(root / "proc/cmdline")
