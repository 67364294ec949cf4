"""Stock /etc/default/grub files as the distributions ship them (Debian 12's runs `lsb_release` in a backtick
command substitution, RHEL's a `$(sed ...)`): read the way the shell and grub-mkconfig read them, every line
numatune does not change kept byte for byte, and only a line numatune must edit and cannot read is refused."""
import json
from pathlib import Path

import pytest

from conftest import write
from numatune.errors import BootConfigError
from numatune.families.boot.bootloader_edit import edit_default_grub
from numatune.families.boot.default_grub import parse_default_grub

GRUB = Path(__file__).resolve().parent / "data" / "grub"
DEBIAN = (GRUB / "debian/etc-default-grub").read_text()
RHEL = (GRUB / "insights-core/etc/default/grub.rhel8-blscfg").read_text()
POLICY = '[kernel.cmdline]\nabsent = ["numa=off"]\n'
# What update-grub writes for such a host (Debian 12, BIOS): the menu entry's linux line.
GRUB_CFG = """set default="0"
menuentry 'Debian GNU/Linux' --class debian --class gnu-linux --class gnu --class os $menuentry_id_option 'gnulinux-simple-x' {
\tinsmod ext2
\techo\t'Loading Linux 6.1.0-50-amd64 ...'
\tlinux\t/boot/vmlinuz-6.1.0-50-amd64 root=UUID=0b1f ro numa=off console=ttyS0 quiet
\tinitrd\t/boot/initrd.img-6.1.0-50-amd64
}
"""


def with_numa_off(text):
    """The stock file with numa=off added the way an admin would: inside GRUB_CMDLINE_LINUX's quotes."""
    lines = text.splitlines(keepends=True)
    i = next(n for n, line in enumerate(lines) if line.startswith("GRUB_CMDLINE_LINUX="))
    value = lines[i][len('GRUB_CMDLINE_LINUX="'):].rstrip('"\n')
    lines[i] = 'GRUB_CMDLINE_LINUX="%s"\n' % " ".join(filter(None, [value, "numa=off"]))
    return "".join(lines), i


@pytest.mark.parametrize("stock", [DEBIAN, RHEL], ids=["debian12", "rhel8"])
def test_numa_off_leaves_a_stock_file_and_nothing_else_changes(stock):
    text, i = with_numa_off(stock)
    new = edit_default_grub(text, [], ["numa=off"])
    old_lines, new_lines = text.splitlines(keepends=True), new.splitlines(keepends=True)
    assert len(new_lines) == len(old_lines)
    assert [n for n, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b] == [i]
    assert "numa=off" not in new_lines[i]
    assert new_lines[i] == stock.splitlines(keepends=True)[i]  # back to the stock line exactly


def test_debian_distributor_is_a_command_numatune_does_not_run():
    values = parse_default_grub(DEBIAN)
    assert values["GRUB_CMDLINE_LINUX"] == "" and values["GRUB_CMDLINE_LINUX_DEFAULT"] == "quiet"
    assert values["GRUB_DISABLE_OS_PROBER"] == "true"
    assert values["GRUB_DISTRIBUTOR"] is None  # the output of lsb_release: not known without running it


@pytest.mark.parametrize("line", [
    "GRUB_CMDLINE_LINUX=`cat /etc/cmdline`\n",
    'GRUB_CMDLINE_LINUX="$(cat /etc/cmdline)"\n',
    'GRUB_CMDLINE_LINUX="numa=off" quiet\n',
    'GRUB_CMDLINE_LINUX_DEFAULT=`echo quiet numa=off`\n',
])
def test_a_line_numatune_must_edit_and_cannot_read_is_refused(line):
    text = DEBIAN.replace('GRUB_CMDLINE_LINUX=""\n', 'GRUB_CMDLINE_LINUX=""\n' + line)
    with pytest.raises(BootConfigError) as err:
        edit_default_grub(text, [], ["numa=off"])
    assert err.value.message.startswith("/etc/default/grub:11: GRUB_CMDLINE_LINUX"), err.value.message
    assert "\n" not in err.value.message and err.value.hint


@pytest.mark.parametrize("line", [
    "GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null ||\n  echo Debian`\n",
    'GRUB_DISTRIBUTOR="$(echo "a b")" # said twice\n',
    "GRUB_TERMINAL=serial; GRUB_TIMEOUT=$((2 * 3))\n",
    "GRUB_GFXMODE=$(printf '%s' \"640x480\n\")\n",
])
def test_lines_numatune_does_not_edit_are_kept_byte_for_byte(line):
    text, _ = with_numa_off(DEBIAN + line)
    new = edit_default_grub(text, [], ["numa=off"])
    assert new.endswith(line) and "numa=off" not in new
    assert parse_default_grub(new)["GRUB_CMDLINE_LINUX"] == ""


def test_a_command_that_names_the_cmdline_variable_is_refused():
    # Even where the shell would run it in a subshell: numatune does not guess what such a line does.
    text, _ = with_numa_off(DEBIAN)
    text += 'GRUB_X="$(\nGRUB_CMDLINE_LINUX=foo\necho x)"\n'
    with pytest.raises(BootConfigError, match="GRUB_CMDLINE_LINUX"):
        edit_default_grub(text, [], ["numa=off"])


def test_plan_and_apply_remove_numa_off_on_a_debian_root(tmp_path, cli):
    root = tmp_path / "root"
    text, i = with_numa_off(DEBIAN)
    write(root, "/etc/default/grub", text)
    write(root, "/boot/grub/grub.cfg", GRUB_CFG)
    write(root, "/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-50-amd64 root=UUID=0b1f ro numa=off console=ttyS0 quiet\n")
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    change = next(c for c in json.loads(out)["changes"] if c["id"] == "cmdline.remove:numa=off")
    assert "/etc/default/grub" in [w["path"] for w in change["writes"]]
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 0, out + err
    assert (root / "etc/default/grub").read_text() == DEBIAN
    # update-grub's /boot/grub/grub.cfg is what the next boot reads: its linux line loses numa=off too.
    assert "numa=off" not in (root / "boot/grub/grub.cfg").read_text()
    status, out, err = cli("plan", "--exit-code", "--root", root, "--policy", policy)
    assert status == 0, out + err
