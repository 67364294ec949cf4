"""The boot path (issue #24): what apply keeps in /etc/numatune/boot.conf,
the unit that runs `numatune boot`, and a boot simulated on a copy: the
kernel's even spread of vm.nr_hugepages first, then the boot command."""
import json
import re
import shutil
from pathlib import Path

from conftest import tree_digest, write

REPO = Path(__file__).resolve().parent.parent
EIGHT_NODES = Path(__file__).parent / "cases" / "hugepages" / "in-use-by-others" / "root"
NODE = "sys/devices/system/node/node%s/hugepages/hugepages-2048kB/nr_hugepages"


def _eight_nodes(tmp_path, init="sysv"):
    """The case's root: RHEL 6.5 with the RPM's SysV script; "systemd": the
    same host as a RHEL 7 one (the Superdome X era) without the unit installed."""
    root = tmp_path / "root"
    shutil.copytree(EIGHT_NODES, root, symlinks=True)
    if init == "systemd":
        shutil.rmtree(root / "etc/rc.d")
        (root / "etc/systemd/system").mkdir(parents=True)
        write(root, "/proc/sys/kernel/osrelease", "3.10.0-1160.el7.x86_64\n")
    return root


def _nodes(root):
    return {str(n): int((root / (NODE % n)).read_text()) for n in range(8)}


def _boot_spread(root):
    """What the kernel leaves at boot: vm.nr_hugepages from sysctl.d spread
    evenly over the nodes with memory (the lower ids take the remainder)."""
    conf = (root / "etc/sysctl.d/90-numatune.conf").read_text()
    total = int(re.search(r"^vm\.nr_hugepages = (\d+)$", conf, re.M).group(1))
    share, extra = divmod(total, 8)
    for n in range(8):
        (root / (NODE % n)).write_text("%d\n" % (share + (n < extra)))


def test_the_8_node_host_keeps_node_7_for_its_instance_across_a_reboot(tmp_path, cli):
    """Issue #24's done-when: apply --policy oracle-hugepages leaves node 7
    at least 15,745 free pages beside the 255 in use, and what it persists
    gives node 7 those pages again at boot."""
    root = _eight_nodes(tmp_path)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", "oracle-hugepages", "--confirm-within", "0")
    assert status == 0, out + err
    node7 = _nodes(root)["7"]
    assert node7 - 255 >= 15745
    after_apply = _nodes(root)

    _boot_spread(root)
    assert _nodes(root)["7"] < 15745          # the even spread alone would starve BDT12CG_1
    status, out, err = cli("boot", "--root", root)
    assert status == 0, out + err
    assert _nodes(root) == after_apply
    # One line per setting, saying what it was at boot.
    assert len([line for line in out.splitlines() if line.startswith("numatune boot: /sys/")]) == 8
    assert "node7/hugepages/hugepages-2048kB/nr_hugepages = %d (was 2039)" % node7 in out
    # RHEL 6: the RPM's SysV script runs it; apply writes no unit there.
    assert not (root / "etc/systemd").exists()


def test_under_systemd_apply_installs_and_enables_the_unit(tmp_path, cli):
    root = _eight_nodes(tmp_path, "systemd")
    policy = REPO / "tests/cases/hugepages/in-use-by-others/policy.toml"
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == 0, out + err
    # The unit is installed and enabled by files apply journaled.
    unit = (root / "etc/systemd/system/numatune-boot.service").read_text()
    assert re.search(r"^ExecStart=\S+ boot$", unit, re.M)
    assert "Wants=numatune-boot.service" in (root / "etc/systemd/system/multi-user.target.d/numatune-boot.conf"
                                             ).read_text()


def test_revert_takes_the_boot_file_and_the_unit_away(tmp_path, cli):
    root = _eight_nodes(tmp_path, "systemd")
    before = tree_digest(root)
    policy = REPO / "tests/cases/hugepages/in-use-by-others/policy.toml"
    assert cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")[0] == 0
    assert (root / "etc/numatune/boot.conf").exists()
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    persisted = [r for r in json.loads(out)["compliant"] if r["rule"].startswith("hugepages.boot:")]
    assert len(persisted) == 8
    assert all(r["kept_by"] == "numatune-boot.service (/etc/numatune/boot.conf)" for r in persisted)
    report = json.loads(out)
    by = {r["id"]: r["persisted_by"] for r in report["results"] if r["state"] == "compliant"}
    assert by["hugepages.live"] == ""          # a live value is not "persisted"
    assert by["sysctl.persist:vm.nr_hugepages"].startswith("sysctl.d file /etc/sysctl.d/90-numatune.conf:")
    text = cli("check", "--root", root, "--policy", policy)[1]
    assert re.search(r"node7 hugepages-2048kB = 16039 at boot, persisted by\s+numatune-boot\.service", text), text
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before


def test_a_sysv_host_without_the_script_is_told(tmp_path, cli):
    root = _eight_nodes(tmp_path)
    (root / "etc/rc.d/init.d/numatune-boot").unlink()
    policy = REPO / "tests/cases/hugepages/in-use-by-others/policy.toml"
    plan = json.loads(cli("plan", "--root", root, "--policy", policy, "--format", "json")[1])
    assert "bootunit.no-sysv-script" in {f["id"] for f in plan["findings"]}


def test_an_installed_unit_is_not_written_again(tmp_path, cli):
    root = _eight_nodes(tmp_path, "systemd")
    write(root, "/usr/lib/systemd/system/numatune-boot.service",
          (REPO / "packaging/systemd/numatune-boot.service").read_text())
    policy = REPO / "tests/cases/hugepages/in-use-by-others/policy.toml"
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    paths = {w["path"] for c in json.loads(out)["changes"] for w in c["writes"]}
    assert "/etc/systemd/system/numatune-boot.service" not in paths
    assert "/etc/systemd/system/multi-user.target.d/numatune-boot.conf" in paths


def test_boot_without_a_boot_file_does_nothing(tmp_path, cli):
    write(tmp_path, "/proc/sys/vm/nr_hugepages", "7\n")
    status, out, err = cli("boot", "--root", tmp_path)
    assert status == 0 and "nothing to restore" in out
    assert (tmp_path / "proc/sys/vm/nr_hugepages").read_text() == "7\n"


def test_boot_writes_the_rest_when_one_setting_fails(tmp_path, cli):
    write(tmp_path, "/sys/a", "1\n")
    write(tmp_path, "/sys/c", "1\n")
    write(tmp_path, "/etc/numatune/boot.conf", "# comment\n/sys/a = 2\n/sys/b/missing = 5\n/sys/c = 3\n")
    status, out, err = cli("boot", "--root", tmp_path)
    assert status == 1
    assert (tmp_path / "sys/a").read_text() == "2\n" and (tmp_path / "sys/c").read_text() == "3\n"
    assert "/sys/b/missing: not set to 5" in out


def test_the_packaged_unit_is_the_one_apply_writes():
    from numatune.families.bootunit.unit import unit_text
    assert (REPO / "packaging/systemd/numatune-boot.service").read_text() == unit_text("/usr/bin/numatune")


def test_the_boot_file_editor_replaces_a_line_in_place():
    from numatune.facts.bootfile import parse, set_line
    text = set_line(None, "/sys/a", "1")
    text = set_line(text, "/sys/b", "2")
    text = set_line(text, "/sys/a", "3")
    assert parse(text) == [("/sys/a", "3"), ("/sys/b", "2")]
    assert text.startswith("# Written by `numatune apply`")
