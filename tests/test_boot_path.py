"""The boot path (issue #24): what apply keeps in /etc/numatune/boot.conf,
the unit that runs `numatune boot`, and a boot simulated on a copy: the
kernel's even spread of vm.nr_hugepages first, then the boot command."""
import io
import json
import re
import shutil
from pathlib import Path
from unittest import mock

from conftest import tree_digest, write
from numatune.apply import bootfile
from numatune.root import Root

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


GRUB = REPO / "tests/data/grub/insights-core"
RHEL95 = "3b1bf67095e94696b600ed25416e97a8-5.14.0-503.11.1.el9_5.x86_64.conf"


def _with_bls(root, release="6.12.0-1.el9uek.x86_64"):
    """The same host booted from the real RHEL 9.5 BLS entry (insights-core
    capture), under systemd, with the kernel release given (OL 9's UEK 8)."""
    shutil.rmtree(root / "etc/rc.d")
    (root / "etc/systemd/system").mkdir(parents=True)
    write(root, "/proc/sys/kernel/osrelease", release + "\n")
    write(root, "/boot/loader/entries/" + RHEL95, (GRUB / "boot/loader/entries" / RHEL95).read_text())
    write(root, "/boot/grub2/grub.cfg", (GRUB / "boot/grub2/grub.cfg.rhel9.5-uefi-host").read_text())
    return root


def _boot_from_entry(root):
    """What the kernel does at boot with the entry's hugepagesz=2M
    hugepages=<node>:<pages>,...: exactly those pages on those nodes, the
    others none (mm/hugetlb.c, hugepages_setup's node format)."""
    options = next(line for line in (root / "boot/loader/entries" / RHEL95).read_text().splitlines()
                   if line.startswith("options "))
    args = options.split()
    pages = args[args.index("hugepagesz=2M") + 1]
    assert pages.startswith("hugepages=")
    placed = dict(p.split(":") for p in pages[len("hugepages="):].split(","))
    for n in range(8):
        (root / (NODE % n)).write_text("%s\n" % placed.get(str(n), "0"))


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
    # The live pool is persisted by both: the kernel's spread of the count, then each node's line.
    assert by["hugepages.live"] == ("sysctl.d file /etc/sysctl.d/90-numatune.conf:3; "
                                    "numatune-boot.service (/etc/numatune/boot.conf)")
    assert by["sysctl.persist:vm.nr_hugepages"].startswith("sysctl.d file /etc/sysctl.d/90-numatune.conf:")
    text = cli("check", "--root", root, "--policy", policy)[1]
    assert re.search(r"node7 hugepages-2048kB = 16039 at boot, persisted by\s+numatune-boot\.service", text), text
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before


def test_a_sysv_host_without_the_script_refuses_the_spread(tmp_path, cli):
    """Nothing would run the boot file at boot on this RHEL 6 host, and 2.6.32
    takes no node format: vm.nr_hugepages alone comes back, spread evenly,
    2039 pages on node 7 for an instance that needs 15745 beside the 255 in
    use. Refused as a shrink is: a critical finding, no HugePages change."""
    root = _eight_nodes(tmp_path)
    (root / "etc/rc.d/init.d/numatune-boot").unlink()
    policy = REPO / "tests/cases/hugepages/in-use-by-others/policy.toml"
    plan = json.loads(cli("plan", "--root", root, "--policy", policy, "--format", "json")[1])
    (finding,) = [f for f in plan["findings"] if f["id"] == "hugepages.boot-starves:node7"]
    assert finding["severity"] == "critical"
    assert "node 7 would get 2039 where the plan places 16039, less than the 15745 BDT12CG_1 need and the 255 " \
           "others hold there" in finding["message"]
    assert "/etc/rc.d/init.d/numatune-boot is missing" in finding["message"]
    assert not [c for c in plan["changes"] if c["id"].startswith(("hugepages.", "sysctl.persist:vm.nr_hugepages"))]
    before = _nodes(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == 1 and "the policy is not met: hugepages.boot-starves:node7" in err
    assert _nodes(root) == before and not (root / "etc/numatune/boot.conf").exists()
    # The admin who knows says so: the count is persisted, spread and all.
    relaxed = write(tmp_path, "relaxed.toml", policy.read_text() + "allow_shrink = true\n")
    plan = json.loads(cli("plan", "--root", root, "--policy", relaxed, "--format", "json")[1])
    assert "sysctl.persist:vm.nr_hugepages" in {c["id"] for c in plan["changes"]}
    assert "hugepages.placement-at-boot" in {f["id"] for f in plan["findings"] if f["severity"] == "warning"}


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


def test_a_choice_file_that_took_the_value_is_not_reported_as_different(tmp_path, cli):
    # A plain file stands in for sysfs: it reads back as the kernel shows a choice after the write.
    enabled = "/sys/kernel/mm/transparent_hugepage/enabled"
    write(tmp_path, "/etc/numatune/boot.conf", "%s = never\n/sys/a = 2\n" % enabled)
    write(tmp_path, enabled, "always madvise [never]\n")
    write(tmp_path, "/sys/a", "1\n")
    real_read = Root.read_value

    def read_value(self, path):
        got = real_read(self, path)
        return {"never": "always madvise [never]", "2": "3"}.get(got, got) if path in (enabled, "/sys/a") else got
    with mock.patch.object(Root, "read_value", read_value):
        out = io.StringIO()
        assert bootfile.run(Root(str(tmp_path)), out) == 0
    lines = out.getvalue().splitlines()
    assert enabled + " = never (was" in lines[0] and "kernel holds" not in lines[0], lines
    assert "(the kernel holds 3)" in lines[1], lines


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


def test_linux_5_16_keeps_node_7_through_the_bootloader(tmp_path, cli):
    """The same done-when on the 8-node host booted by a kernel that takes
    the node format (Linux 5.16+): the BLS entry carries each node's pool,
    the kernel allocates them at boot, and no boot file is needed."""
    root = _with_bls(_eight_nodes(tmp_path))
    before = tree_digest(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", "oracle-hugepages", "--confirm-within", "0")
    assert status == 0, out + err
    after_apply = _nodes(root)
    assert after_apply["7"] - 255 >= 15745
    assert not (root / "etc/numatune/boot.conf").exists()
    assert not (root / "etc/systemd/system/numatune-boot.service").exists()
    # Persisted by the bootloader; the pools are right live, so no reboot is pending for them.
    report = json.loads(cli("check", "--root", root, "--policy", "oracle-hugepages", "--format", "json")[1])
    kept = {r["rule"]: r["kept_by"] for r in report["compliant"]}
    arg = "hugepages=0:40,1:40,2:40,3:39,4:39,5:39,6:39,7:16039"
    assert kept["cmdline.add:" + arg].startswith("bootloader (/boot/loader/entries/")
    assert not [r for r in report["results"] if r["id"].startswith("cmdline.reboot-pending:hugepages")]
    _boot_from_entry(root)
    assert _nodes(root) == after_apply
    # Nothing left to plan; the running kernel was not booted with the arguments yet: said, as pending.
    plan = json.loads(cli("plan", "--root", root, "--policy", "oracle-hugepages", "--format", "json")[1])
    assert plan["changes"] == []
    # revert puts every file back, the BLS entry and the node pools included.
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before


def test_an_older_kernel_on_the_same_bootloader_uses_the_boot_file(tmp_path, cli):
    # RHEL 9's 5.14 predates the node format: the boot file keeps the placement.
    root = _with_bls(_eight_nodes(tmp_path), "5.14.0-503.11.1.el9_5.x86_64")
    plan = json.loads(cli("plan", "--root", root, "--policy", "oracle-hugepages", "--format", "json")[1])
    ids = {c["id"] for c in plan["changes"]}
    assert "hugepages.boot:node7:2048kB" in ids
    assert not [i for i in ids if i.startswith("cmdline.add:hugepages")]


def test_rhel7_with_a_grub_cfg_numatune_edits_still_uses_the_boot_file(tmp_path, cli):
    """RHEL 7's 3.10 takes no node format, even where numatune edits the
    bootloader (the real RHEL 7 grub.cfg of tests/data/grub): the boot file
    keeps node 7, and a boot simulated on the copy gives it back."""
    root = _eight_nodes(tmp_path, "systemd")
    write(root, "/boot/grub2/grub.cfg", (GRUB / "boot/grub2/grub.cfg.rhel7").read_text())
    write(root, "/proc/cmdline", (GRUB / "proc/cmdline.rhel7").read_text())
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", "oracle-hugepages", "--confirm-within", "0")
    assert status == 0, out + err
    assert "hugepages=" not in (root / "boot/grub2/grub.cfg").read_text()
    after_apply = _nodes(root)
    assert after_apply["7"] - 255 >= 15745
    _boot_spread(root)
    assert cli("boot", "--root", root)[0] == 0
    assert _nodes(root) == after_apply
