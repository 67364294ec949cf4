"""tuned as the persistence route ([tuned] persist): the child profile
numatune writes is loaded by tuned's own profile loader (its Python package,
no daemon) with its include= chain, and the merged units hold the policy."""
import json
import shutil
import sys
from pathlib import Path

import pytest

from conftest import write

CASES = Path(__file__).parent / "cases"
DIST = "/usr/lib/python3/dist-packages"
POLICY = '''
[sysctl]
"vm.dirty_ratio" = 15
"vm.swappiness" = 10

[kernel]
transparent_hugepage = "never"
[kernel.cmdline]
present = ["numa_balancing=disable"]

[cpu]
governor = "performance"
max_cstate = 1

[[block]]
match = { name = "sda" }
scheduler = "deadline"
read_ahead_kb = 4096
'''


def tuned_loader():
    """tuned's Loader, Locator, Factory, Merger and Variables, or a skip."""
    if not Path(DIST, "tuned/profiles/loader.py").exists():
        pytest.skip("tuned is not installed (apt-get install tuned; .ci/run installs it)")
    if DIST not in sys.path:
        sys.path.append(DIST)  # the venv does not see the system's site-packages
    from tuned.profiles.factory import Factory
    from tuned.profiles.loader import Loader
    from tuned.profiles.locator import Locator
    from tuned.profiles.merger import Merger
    from tuned.profiles.variables import Variables
    return lambda dirs: Loader(Locator(dirs), Factory(), Merger(), None, Variables())


@pytest.fixture
def root(tmp_path):
    """A RHEL 6 disk (sda, cfq) with tuned's oracle profile active."""
    r = tmp_path / "root"
    shutil.copytree(CASES / "storage/legacy-scheduler/root", r, symlinks=True)
    shutil.copytree(CASES / "tuned/child-over-oracle/root/usr/lib/tuned", r / "usr/lib/tuned")
    write(r, "/etc/tuned/active_profile", "oracle\n")
    write(r, "/etc/systemd/system/multi-user.target.wants/tuned.service", "")  # tuned starts at boot
    write(r, "/proc/sys/vm/swappiness", "60\n")
    write(r, "/proc/sys/vm/dirty_ratio", "20\n")
    write(r, "/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")
    return r


def plan(cli, root, policy):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def test_tuned_loads_the_child_profile_with_its_include_chain(root, cli, tmp_path):
    load = tuned_loader()
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == 0, out + err
    assert (root / "etc/tuned/active_profile").read_text() == "numatune\n"
    # tuned's own search path, pointed at the root: /usr/lib/tuned, then /etc/tuned (which wins).
    profile = load([str(root / "usr/lib/tuned"), str(root / "etc/tuned")]).load(["numatune"])
    units = profile.units
    assert units["sysctl"].options["vm.dirty_ratio"] == "15"        # ours, over oracle's 40
    assert units["sysctl"].options["vm.swappiness"] == "10"
    assert units["sysctl"].options["kernel.shmmni"] == "4096"       # oracle's own, through include=
    assert units["cpu"].options["governor"] == "performance"
    assert units["cpu"].options["force_latency"] == "cstate.id:1"
    assert units["vm"].options["transparent_hugepages"] == "never"
    disk = units["disk_numatune_0"]
    assert (disk.type, disk.devices) == ("disk", "sda")
    # Before the included profile's [disk] (devices=*, priority 0) claims sda.
    assert int(disk.options["priority"]) < 0
    # The name this RHEL 6 disk offers (deadline, not mq-deadline); readahead in KB as tuned reads it.
    assert (disk.options["elevator"], disk.options["readahead"]) == ("deadline", "4096")
    # Boot arguments stay numatune's own bootloader edit: tuned's plugin would rewrite grub.cfg after it.
    assert "bootloader" not in units
    # The queue settings are the profile's, so no udev rule; nothing left to plan.
    assert not (root / "etc/udev/rules.d/90-numatune.rules").exists()
    assert [c["id"] for c in plan(cli, root, policy)["changes"]] == []


def test_revert_puts_the_old_profile_back(root, cli, tmp_path):
    policy = write(tmp_path, "p.toml", POLICY)
    assert cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")[0] == 0
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert (root / "etc/tuned/active_profile").read_text() == "oracle\n"
    assert not (root / "etc/tuned/numatune").exists()


def test_files_route_keeps_todays_files_and_a_kept_value_is_no_drift(root, cli, tmp_path):
    policy = write(tmp_path, "p.toml", '[tuned]\npersist = "files"\n' + POLICY)
    got = plan(cli, root, policy)
    ids = [c["id"] for c in got["changes"]]
    assert "tuned.persist" not in ids
    # oracle keeps vm.swappiness = 10: persisted, not drift; dirty_ratio goes to sysctl.d.
    assert "sysctl.persist:vm.swappiness" not in ids and "sysctl.persist:vm.dirty_ratio" in ids
    kept = [c["message"] for c in got["compliant"] if c["rule"] == "sysctl.persist:vm.swappiness"]
    assert kept and "tuned profile oracle (" in kept[0] and "oracle/tuned.conf:" in kept[0]
    (finding,) = [f for f in got["findings"] if f["id"] == "tuned.conflict:sysctl_vm.dirty_ratio"]
    # tuned re-applies sysctl.d after the profile (reapply_sysctl, its default): the sysctl.d value wins.
    assert finding["severity"] == "info" and finding["target"].endswith("oracle/tuned.conf:12")
    assert any(c["id"].startswith("block.udev:") for c in got["changes"])


def test_a_sysctl_d_file_still_wins_over_the_profile(root, cli, tmp_path):
    # tuned re-applies sysctl.d after its profile (reapply_sysctl = 1, its default): a file
    # that sets another value must still be dealt with on the profile route.
    write(root, "/etc/sysctl.d/99-local.conf", "vm.dirty_ratio = 30\n")
    ids = [c["id"] for c in plan(cli, root, write(tmp_path, "p.toml", POLICY))["changes"]]
    assert "tuned.persist" in ids and "sysctl.override:vm.dirty_ratio@/etc/sysctl.d/99-local.conf" in ids
    assert "sysctl.persist:vm.dirty_ratio" not in ids


def test_persist_profile_without_a_profile_says_so(root, cli, tmp_path):
    (root / "etc/tuned/active_profile").unlink()
    got = plan(cli, root, write(tmp_path, "p.toml", '[tuned]\npersist = "profile"\n[sysctl]\n"vm.swappiness" = 10\n'))
    assert [f["severity"] for f in got["findings"] if f["id"] == "tuned.no-profile-to-include"] == ["warning"]
    assert "sysctl.persist:vm.swappiness" in [c["id"] for c in got["changes"]]


def test_a_read_ahead_floor_is_tunes_own_floor(root, cli, tmp_path):
    """read_ahead_kb = { at_least = 4096 } is tuned's readahead=>4096 (its profiles' own spelling: set only
    where the disk has less), and tuned's own modifier keeps a higher value."""
    load = tuned_loader()
    from tuned.plugins.base import Plugin
    policy = write(tmp_path, "p.toml", POLICY.replace("read_ahead_kb = 4096", "read_ahead_kb = { at_least = 4096 }"))
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == 0, out + err
    disk = load([str(root / "usr/lib/tuned"), str(root / "etc/tuned")]).load(["numatune"]).units["disk_numatune_0"]
    assert disk.options["readahead"] == ">4096"
    assert Plugin._process_assignment_modifiers(None, disk.options["readahead"], "8192") is None   # kept
    assert Plugin._process_assignment_modifiers(None, disk.options["readahead"], "128") == "4096"  # raised
    assert [c["id"] for c in plan(cli, root, policy)["changes"]] == []
