"""/etc/default/grub.d/*.cfg, which Debian's and Ubuntu's grub-mkconfig sources after /etc/default/grub:
an assignment there that would undo numatune's edit at the next update-grub is named in the plan, and that
argument is not written; one that only appends to the variables, or one RHEL's grub2-mkconfig never reads,
changes nothing."""
import json

import pytest

from conftest import write
from numatune.errors import BootConfigError
from numatune.families.boot.grub_d import effective
from test_default_grub_stock import DEBIAN, GRUB, GRUB_CFG, POLICY, with_numa_off

# Debian 12's /usr/sbin/grub-mkconfig, its lines 160-167 that source the files, verbatim (grub-common
# 2.06-13+deb12u2, GPL-3.0-or-later).
DEBIAN_MKCONFIG = """#! /bin/sh
if test -f ${sysconfdir}/default/grub ; then
  . ${sysconfdir}/default/grub
fi
for x in ${sysconfdir}/default/grub.d/*.cfg ; do
  if [ -e "${x}" ]; then
    . "${x}"
  fi
done
"""
# A grub2-mkconfig that reads /etc/default/grub only (RHEL's).
RHEL_MKCONFIG = """#! /bin/sh
if test -f ${sysconfdir}/default/grub ; then
  . ${sysconfdir}/default/grub
fi
"""
# The one file Debian 12 ships there (comments only).
INIT_SELECT = (GRUB / "debian" / "init-select.cfg").read_text()
CLOUD = 'GRUB_CMDLINE_LINUX_DEFAULT="numa=off console=tty1 console=ttyS0"\n'


def debian_root(tmp_path, cfgs, mkconfig=DEBIAN_MKCONFIG):
    root = tmp_path / "root"
    write(root, "/etc/default/grub", with_numa_off(DEBIAN)[0])
    for name, text in cfgs.items():
        write(root, "/etc/default/grub.d/" + name, text)
    if mkconfig is not None:
        write(root, "/usr/sbin/grub-mkconfig", mkconfig)
    write(root, "/boot/grub/grub.cfg", GRUB_CFG)
    write(root, "/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-50-amd64 root=UUID=0b1f ro numa=off console=ttyS0\n")
    return root


def planned(cli, tmp_path, root):
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out), policy


@pytest.mark.parametrize("mkconfig", [DEBIAN_MKCONFIG, None], ids=["debian-mkconfig", "no-mkconfig-in-root"])
def test_a_cloud_image_file_that_sets_numa_off_again_is_named_and_nothing_is_written(tmp_path, cli, mkconfig):
    root = debian_root(tmp_path, {"50-cloudimg-settings.cfg": CLOUD, "init-select.cfg": INIT_SELECT}, mkconfig)
    plan, policy = planned(cli, tmp_path, root)
    assert [c["id"] for c in plan["changes"] if c["id"].startswith("cmdline.")] == []
    finding = next(f for f in plan["findings"] if f["id"] == "cmdline.cannot-edit:numa=off")
    assert finding["severity"] == "critical"
    assert ("/etc/default/grub.d/50-cloudimg-settings.cfg:1 sets GRUB_CMDLINE_LINUX_DEFAULT after /etc/default/grub"
            in finding["message"]), finding["message"]
    assert "carry numa=off" in finding["message"]
    before = (root / "etc/default/grub").read_text()
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert (root / "etc/default/grub").read_text() == before
    assert "numa=off" in (root / "boot/grub/grub.cfg").read_text()


def test_a_file_that_sets_the_main_variable_anew_loses_an_added_argument(tmp_path, cli):
    root = debian_root(tmp_path, {"99-mine.cfg": "GRUB_CMDLINE_LINUX='console=ttyS0'\n"})
    policy = write(tmp_path, "p.toml", '[kernel.cmdline]\npresent = ["numa_balancing=disable"]\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    finding = next(f for f in json.loads(out)["findings"] if f["id"] == "cmdline.cannot-edit:numa_balancing=disable")
    assert "/etc/default/grub.d/99-mine.cfg:1 sets GRUB_CMDLINE_LINUX after" in finding["message"]
    assert "lack numa_balancing=disable" in finding["message"]


@pytest.mark.parametrize("cfgs,mkconfig", [
    # Appending to the variable keeps numatune's edit of it.
    ({"50-cloudimg-settings.cfg": 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT console=ttyS0"\n'},
     DEBIAN_MKCONFIG),
    ({"50-cloudimg-settings.cfg": 'GRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0"\n'}, DEBIAN_MKCONFIG),
    ({"init-select.cfg": INIT_SELECT}, DEBIAN_MKCONFIG),
    # RHEL's grub2-mkconfig never reads the directory.
    ({"50-cloudimg-settings.cfg": CLOUD}, RHEL_MKCONFIG),
    # The shell's glob skips a name starting with a dot.
    ({".50-hidden.cfg": CLOUD}, DEBIAN_MKCONFIG),
], ids=["appends", "other-arguments", "debian12-stock", "rhel-mkconfig", "dotfile"])
def test_files_that_keep_the_edit_change_nothing(tmp_path, cli, cfgs, mkconfig):
    root = debian_root(tmp_path, cfgs, mkconfig)
    plan, _ = planned(cli, tmp_path, root)
    assert "cmdline.remove:numa=off" in [c["id"] for c in plan["changes"]]
    assert not [f for f in plan["findings"] if f["id"].startswith("cmdline.cannot-edit")]


def test_effective_values_follow_the_shell():
    values, where = effective([
        ("/etc/default/grub", 'GRUB_CMDLINE_LINUX="a"\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\n'),
        ("/etc/default/grub.d/1.cfg", 'GRUB_CMDLINE_LINUX="${GRUB_CMDLINE_LINUX} b"\n'),
        ("/etc/default/grub.d/2.cfg", "GRUB_CMDLINE_LINUX_DEFAULT='$GRUB_CMDLINE_LINUX_DEFAULT'\n"),
    ])
    assert values == {"GRUB_CMDLINE_LINUX": "a b", "GRUB_CMDLINE_LINUX_DEFAULT": "$GRUB_CMDLINE_LINUX_DEFAULT"}
    assert where == {"GRUB_CMDLINE_LINUX": ("/etc/default/grub.d/1.cfg", 1),
                     "GRUB_CMDLINE_LINUX_DEFAULT": ("/etc/default/grub.d/2.cfg", 1)}


@pytest.mark.parametrize("line", ['GRUB_CMDLINE_LINUX="$EXTRA numa=off"\n', 'GRUB_CMDLINE_LINUX="$1"\n'])
def test_a_reference_numatune_cannot_know_is_refused(line):
    with pytest.raises(BootConfigError, match="cannot know without running the shell"):
        effective([("/etc/default/grub.d/9.cfg", line)])


def test_an_unknowable_file_is_said_in_the_plan(tmp_path, cli):
    root = debian_root(tmp_path, {"60-extra.cfg": 'GRUB_CMDLINE_LINUX_DEFAULT="$EXTRA quiet"\n'})
    plan, _ = planned(cli, tmp_path, root)
    finding = next(f for f in plan["findings"] if f["id"] == "cmdline.cannot-edit:numa=off")
    assert "60-extra.cfg:1" in finding["message"] and "$EXTRA" in finding["message"]
    assert not [c for c in plan["changes"] if c["id"].startswith("cmdline.")]


def test_check_is_not_ok_while_a_grub_d_file_would_put_numa_off_back(tmp_path, cli):
    """Entries and /etc/default/grub already without numa=off: the next update-grub would still restore it."""
    root = debian_root(tmp_path, {"50-cloudimg-settings.cfg": CLOUD})
    write(root, "/etc/default/grub", DEBIAN)
    write(root, "/boot/grub/grub.cfg", GRUB_CFG.replace(" numa=off", ""))
    write(root, "/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-50-amd64 root=UUID=0b1f ro console=ttyS0\n")
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("check", "--root", root, "--policy", policy)
    assert status != 0, out
    assert "CRITICAL  cmdline.cannot-edit:numa=off" in out and "50-cloudimg-settings.cfg:1 sets" in out, out
