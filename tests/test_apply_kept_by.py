"""What apply's table names for each setting (issue #37): the mechanism that
puts it back at boot, on a host where it exists and runs at boot, never
"none named by the plan" for a setting something does keep. The Superdome-X
host of the papers (tests/superdome_host.py): RHEL 7.9 with tuned's balanced
profile active and enabled, so numatune keeps the policy in its child tuned
profile; grub2 files; 3PAR maps behind dm-multipath; eno24 with an ifcfg file;
Oracle's ORCL with a pfile; numatune installed as the root's system command."""
import re
import shutil

import pytest

import superdome_host
from conftest import install_numatune, write

TUNED = "tuned profile numatune (/etc/tuned/numatune/tuned.conf)"
GRUB = "bootloader (/boot/grub2/grub.cfg, /etc/default/grub)"
POLICY = '''
[cpu]
governor = "performance"

[kernel]
transparent_hugepage = "never"

[sysctl]
"vm.swappiness" = 10
"kernel.numa_balancing" = 0

[hugepages]
count = "auto"

[[block]]
match = { vendor = "3PARdata", model = "VV" }
scheduler = "deadline"
nr_requests = { at_least = 1024 }

[[net]]
match = { name = "eno24" }
mtu = 9000

[[oracle.instance]]
sid = "ORCL"
parameters = { processes = 4000 }
'''
# Each setting's row: the mechanisms it must name (all of them), in the words `check` uses.
ROWS = [
    # intel_pstate picks its own policy at boot: the child profile's [cpu] governor sets it again.
    ("cpu.governor", [TUNED]),
    # Two keepers, both true: the boot argument and the child profile's [vm].
    ("kernel.transparent_hugepage", [GRUB, TUNED]),
    ("sysctl.vm.swappiness", [TUNED]),
    ("sysctl.kernel.numa_balancing", [TUNED]),
    # One node (numa=off): the kernel's spread of vm.nr_hugepages is the placement.
    ("hugepages.count", ["sysctl.d file /etc/sysctl.d/90-numatune.conf"]),
    ("sysctl.vm.nr_hugepages", ["sysctl.d file /etc/sysctl.d/90-numatune.conf"]),
    ("block[0].scheduler", ["udev rule file /etc/udev/rules.d/90-numatune.rules"]),
    ("block[0].nr_requests", ["udev rule file /etc/udev/rules.d/90-numatune.rules"]),
    ("block[0]", ["udev rule file /etc/udev/rules.d/90-numatune.rules"]),
    ("net[0]", ["ifcfg file /etc/sysconfig/network-scripts/ifcfg-eno24"]),
    # The instance reads its pfile when it starts.
    ("oracle.parameters.processes", ["ORCL's pfile /u01/app/oracle/product/12.1.0/dbhome_1/dbs/initORCL.ora, "
                                     "read when it starts"]),
    # What loads the child profile at boot: tuned.service, enabled, reading active_profile.
    ("tuned.persist", ["tuned.service (/etc/tuned/active_profile: numatune)"]),
]


@pytest.fixture(scope="module")
def superdome(tmp_path_factory):
    root = superdome_host.build(tmp_path_factory.mktemp("sdx") / "root")
    install_numatune(root)
    return root


@pytest.fixture
def sdx(superdome, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(superdome, root, symlinks=True)
    return root


def table(out):
    """{setting: what sets it again at boot} from apply's table: a row's
    mechanism wraps under its column; a shared row lists its settings under it."""
    text = out.split("what survives a reboot:\n", 1)[1].split("\nnext:", 1)[0]
    head, *lines = text.splitlines()
    column = head.index("what sets it again at boot")
    rows = []
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if indent == 2:
            name = line[2:head.index(" set ")].strip()
            rows.append({"text": line[column:].strip(), "names": [] if name.endswith("settings:") else [name]})
        elif indent == column:
            rows[-1]["text"] += " " + line.strip()
        else:
            rows[-1]["names"] += [n.strip() for n in line.split(",")]
    return {name: row["text"] for row in rows for name in row["names"]}


def test_every_row_names_what_keeps_it_at_boot(cli, sdx, tmp_path):
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("apply", "--root", sdx, "--policy", policy, "--yes")
    assert status == 0, out + err
    said = table(out)
    flat = " ".join(said.values())
    for setting, mechanisms in ROWS:
        assert setting in said, (setting, out)
        for mechanism in mechanisms:
            # Its files on the first row that names it, its name alone on later rows.
            assert mechanism.partition(" (")[0] in said[setting], (setting, mechanism, said[setting])
            assert mechanism in flat, (mechanism, out)
    assert not [s for s, text in said.items() if "none named" in text], said
    # Every row the table has is one of the policy's settings above: nothing is left to "see check".
    assert set(said) == {s for s, _ in ROWS}, said


# Settings nothing keeps, and the finding after the writes that says so: the table says live only.
LIVE_ONLY = [
    # eno25 has no ifcfg file: a file numatune made would configure the NIC on its own.
    ('[[net]]\nmatch = { name = "eno25" }\nmtu = 9000\n', "net[0]", False),
    # Kept in files, not by tuned; the boot unit would redo the governor, but the root has no numatune to run.
    ('[tuned]\npersist = "files"\n[cpu]\ngovernor = "performance"\n', "cpu.governor", True),
]


@pytest.mark.parametrize("policy_text, setting, uninstall", LIVE_ONLY)
def test_a_setting_nothing_keeps_is_said_to_be_lost_at_reboot(cli, sdx, tmp_path, policy_text, setting, uninstall):
    if uninstall:
        (sdx / "usr/bin/numatune").unlink()
    policy = write(tmp_path, "p.toml", policy_text)
    status, out, err = cli("apply", "--root", sdx, "--policy", policy, "--yes")
    assert status == 0, out + err
    assert table(out)[setting] == "live only: lost at reboot", out
    # Nor does a finding say the boot unit sets it again.
    assert "(numatune-boot.service) sets it again" not in " ".join(out.split()), out


def test_a_profile_nothing_starts_at_boot_keeps_nothing(cli, sdx, tmp_path):
    """tuned installed and its profile active, but tuned.service not enabled:
    nothing loads a profile at boot, so the policy is kept in sysctl.d, udev
    rules and the bootloader, and no row (nor check) names tuned."""
    (sdx / "etc/systemd/system/multi-user.target.wants/tuned.service").unlink()
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("apply", "--root", sdx, "--policy", policy, "--yes")
    assert status == 0, out + err
    said = table(out)
    assert not [s for s, text in said.items() if "tuned" in text], out
    assert "sysctl.d file /etc/sysctl.d/90-numatune.conf" in said["sysctl.vm.swappiness"], said
    assert not (sdx / "etc/tuned/numatune").exists()
    check = cli("check", "--root", sdx, "--policy", policy, "--format", "json")[1]
    assert "tuned profile" not in check.replace("tuned profile balanced sets", "")
