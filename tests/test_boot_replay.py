"""The boot path for live changes no file can keep (issue #24): apply keeps a
copy of the policy and the changes' boot keys in
/etc/numatune/boot-replay.json, and `numatune boot` plans them again on the
next boot's facts. A boot is simulated on a copy: IRQ numbers renumbered in
/proc/irq, /proc/interrupts and msi_irqs (the "boot 2" root), cpufreq and
cpuidle back at the kernel's defaults (this VM has neither: fixtures)."""
import json
import shutil
from pathlib import Path

import pytest

from conftest import install_numatune, tree_digest, write
from test_cpu_power import make_power_root, online

REPO = Path(__file__).resolve().parent.parent
CASES = Path(__file__).parent / "cases"
CASE = CASES / "network" / "irq-local-node"
REPLAY = "etc/numatune/boot-replay.json"
KEPT = "numatune-boot.service (/etc/numatune/boot-replay.json)"
MSI = "sys/devices/pci0000:00/0000:81:00.0/msi_irqs"


def _boot1(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(CASE / "root", root, symlinks=True)
    return root


def _affinity(root, irq):
    return (root / "proc/irq" / str(irq) / "smp_affinity_list").read_text().strip()


def _boot2(root, renumber=((70, 90), (71, 91))):
    """The next boot: ib0's IRQs get new numbers, every IRQ on every CPU again."""
    interrupts = (root / "proc/interrupts").read_text()
    for old, new in renumber:
        shutil.rmtree(root / "proc/irq" / str(old))
        (root / MSI / str(old)).unlink()
        write(root, "/%s/%d" % (MSI, new), "msix\n")
        interrupts = interrupts.replace("  %d:" % old, "  %d:" % new)
        write(root, "/proc/irq/%d/smp_affinity_list" % new, "0-7\n")
    (root / "proc/interrupts").write_text(interrupts)
    write(root, "/proc/irq/80/smp_affinity_list", "0-7\n")


def _apply(cli, root, policy):
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == 0, out + err
    return out


def test_boot_sets_the_new_boots_irqs_from_the_policy_copy(tmp_path, cli):
    root = _boot1(tmp_path)
    policy = tmp_path / "policy.toml"
    shutil.copy(CASE / "policy.toml", policy)
    _apply(cli, root, policy)
    assert (_affinity(root, 70), _affinity(root, 71)) == ("4", "5")
    kept = json.loads((root / REPLAY).read_text())["families"]
    assert list(kept) == ["network"] and kept["network"]["keys"] == ["net.irq:ib0"]
    assert "Wants=numatune-boot.service" in (root / "etc/systemd/system/multi-user.target.d/numatune-boot.conf"
                                             ).read_text()
    # check: the live IRQ values are persisted, by the boot unit.
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    by = {r["id"]: r["persisted_by"] for r in json.loads(out)["results"] if r["state"] == "compliant"}
    assert by["net.irq:ib0:70"] == by["net.irq:ib0:71"] == KEPT and by["net.irq.boot"] == KEPT
    facts = cli("facts", "--root", root)[1]
    assert "  re-planned at each boot from /etc/numatune/boot-replay.json: net.irq:ib0\n" in facts
    # A policy edited since is not what boot redoes: the copy apply kept is.
    policy.write_text("")

    _boot2(root)
    status, out, err = cli("boot", "--root", root)
    assert status == 0, out + err
    assert (_affinity(root, 90), _affinity(root, 91)) == ("4", "5")
    assert _affinity(root, 80) == "0-7"          # eth0 (node unknown) is left alone, as apply left it
    said = [line for line in out.splitlines() if "net.irq:ib0, transaction" in line]
    assert len(said) == 2 and "ib0 IRQ 90 = 4 (was 0-7;" in said[0], out
    # A normal transaction: history names it, revert undoes this boot's writes only.
    history = json.loads(cli("history", "--root", root, "--format", "json")[1])
    assert len(history) == 2 and history[-1]["changes"] == 2
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert (_affinity(root, 90), _affinity(root, 91)) == ("0-7", "0-7")
    assert (root / REPLAY).exists()


def test_a_reverted_apply_is_not_redone_at_boot(tmp_path, cli):
    root = _boot1(tmp_path)
    before = tree_digest(root)
    _apply(cli, root, CASE / "policy.toml")
    assert cli("revert", "--last", "--root", root)[0] == 0
    # The replay file, the unit and its enabling went with the transaction.
    assert tree_digest(root) == before
    _boot2(root)
    status, out, err = cli("boot", "--root", root)
    assert status == 0 and "nothing to restore" in out
    assert (_affinity(root, 90), _affinity(root, 91)) == ("0-7", "0-7")


def test_an_apply_without_irq_affinity_takes_the_boot_key_away(tmp_path, cli):
    root = _boot1(tmp_path)
    _apply(cli, root, CASE / "policy.toml")
    plain = write(tmp_path, "mtu.toml", '[[net]]\nmatch = { name = "ib0" }\nmtu = 9000\n')
    plan = json.loads(cli("plan", "--root", root, "--policy", plain, "--format", "json")[1])
    (gone,) = [c for c in plan["changes"] if c["id"] == "net.irq.boot"]
    assert gone["current"] == "net.irq:ib0" and gone["desired"] == "none"
    _apply(cli, root, plain)
    assert not (root / REPLAY).exists()
    _boot2(root)
    cli("boot", "--root", root)
    assert _affinity(root, 90) == "0-7"


def test_boot_replays_nothing_for_a_missing_interface_and_says_so(tmp_path, cli):
    root = _boot1(tmp_path)
    _apply(cli, root, CASE / "policy.toml")
    # This boot's ib0 driver found no vectors (or the card is gone).
    _boot2(root)
    shutil.rmtree(root / MSI)
    write(root, "/proc/interrupts", (root / "proc/interrupts").read_text().replace("ib_qib", "other"))
    status, out, err = cli("boot", "--root", root)
    assert status == 0, out + err
    assert "net.irq:ib0: nothing to change on this boot" in out
    assert len(json.loads(cli("history", "--root", root, "--format", "json")[1])) == 1


@pytest.fixture
def power(capture):
    """An intel_pstate/intel_idle server on RHEL 8 (numatune installed as the RPM installs it) with no
    bootloader file numatune knows (a VM image booted by its hypervisor): neither the governor nor the
    C-state limit has a boot route. (RHEL 7's Python cannot run numatune at boot: test_boot_runner.)"""
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    write(root, "/proc/sys/kernel/osrelease", "4.18.0-513.el8.x86_64\n")
    install_numatune(root)
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro\n")
    (root / "etc/systemd/system").mkdir(parents=True, exist_ok=True)
    make_power_root(root, online(root))
    return root


def _defaults(root):
    """What the next boot leaves: powersave, every C-state enabled."""
    for path in (root / "sys/devices/system/cpu/cpufreq").glob("policy*/scaling_governor"):
        path.write_text("powersave\n")
    for path in (root / "sys/devices/system/cpu").glob("cpu*/cpuidle/state*/disable"):
        path.write_text("0\n")


def test_governor_and_cstates_without_a_boot_route_come_back_at_boot(power, cli, tmp_path):
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\nmax_cstate = 1\n')
    plan = json.loads(cli("plan", "--root", power, "--policy", pol, "--format", "json")[1])
    ids = {c["id"]: c for c in plan["changes"]}
    assert ids["cpu.governor"]["boot_key"] == "cpu.governor" and ids["cpu.cstates"]["boot_key"] == "cpu.cstates"
    assert ids["cpu.boot-replay"]["desired"] == "cpu.cstates, cpu.governor"
    before = tree_digest(power)
    _apply(cli, power, pol)
    gov = power / "sys/devices/system/cpu/cpufreq/policy4/scaling_governor"
    c6 = power / "sys/devices/system/cpu/cpu7/cpuidle/state3/disable"
    assert gov.read_text() == "performance\n" and c6.read_text() == "1\n"
    report = json.loads(cli("check", "--root", power, "--policy", pol, "--format", "json")[1])
    by = {r["id"]: r["persisted_by"] for r in report["results"] if r["state"] == "compliant"}
    assert by["cpu.governor"] == by["cpu.max_cstate"] == KEPT

    _defaults(power)
    status, out, err = cli("boot", "--root", power)
    assert status == 0, out + err
    assert gov.read_text() == "performance\n" and c6.read_text() == "1\n"
    assert "= performance (was powersave; cpu.governor, transaction" in out
    assert "= disabled (was enabled: C1E,C6; cpu.cstates, transaction" in out
    # Undo the boot's transaction, then the apply: the host as it was.
    assert cli("revert", "--last", "--root", power)[0] == 0
    assert cli("revert", "--last", "--root", power)[0] == 0
    _defaults(power)
    assert tree_digest(power) == before


def test_a_boot_argument_keeps_them_without_the_boot_unit(power, cli, tmp_path):
    # acpi_idle has processor.max_cstate=, a 5.9+ kernel cpufreq.default_governor=: with a bootloader
    # numatune edits, nothing is left for the boot unit.
    write(power, "/proc/sys/kernel/osrelease", "5.14.0-427.el9.x86_64\n")
    write(power, "/etc/default/grub", 'GRUB_CMDLINE_LINUX="ro"\n')
    write(power, "/sys/devices/system/cpu/cpuidle/current_driver", "acpi_idle\n")
    for path in (power / "sys/devices/system/cpu/cpufreq").glob("policy*/scaling_driver"):
        path.write_text("acpi-cpufreq\n")
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\nmax_cstate = 1\n')
    plan = json.loads(cli("plan", "--root", power, "--policy", pol, "--format", "json")[1])
    ids = {c["id"]: c for c in plan["changes"]}
    assert {"cpu.boot:cpufreq.default_governor", "cpu.boot:processor.max_cstate"} <= set(ids), sorted(ids)
    assert "cpu.boot-replay" not in ids
    assert ids["cpu.governor"]["boot_key"] == ids["cpu.cstates"]["boot_key"] == ""


def test_a_tuned_profile_keeps_them_without_the_boot_unit(power, cli, tmp_path):
    # tuned's own profile (a capture's throughput-performance) is active: numatune's child profile carries
    # [cpu] governor and force_latency, and tuned sets them again when it starts.
    tuned = CASES / "tuned" / "child-over-oracle" / "root"
    shutil.copytree(tuned / "usr/lib/tuned", power / "usr/lib/tuned")
    write(power, "/etc/tuned/active_profile", "throughput-performance\n")
    write(power, "/etc/systemd/system/multi-user.target.wants/tuned.service", "")
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\nmax_cstate = 1\n')
    plan = json.loads(cli("plan", "--root", power, "--policy", pol, "--format", "json")[1])
    ids = {c["id"]: c for c in plan["changes"]}
    assert "cpu.boot-replay" not in ids and ids["cpu.governor"]["boot_key"] == ""
    (child,) = [w for w in ids["tuned.persist"]["writes"] if w["editor"] == "tuned_profile"]
    assert "governor=performance" in child["args"]["content"]
    assert "force_latency=cstate.id:1" in child["args"]["content"]


def test_a_unit_an_older_apply_wrote_is_rewritten_to_run_for_the_replay_file(tmp_path, cli):
    root = _boot1(tmp_path)
    old = (REPO / "packaging/systemd/numatune-boot.service").read_text()
    old = old.replace("ConditionPathExists=|/etc/numatune/boot.conf\n", "ConditionPathExists=/etc/numatune/boot.conf\n")
    old = old.replace("ConditionPathExists=|/etc/numatune/boot-replay.json\n", "")
    write(root, "/etc/systemd/system/numatune-boot.service", old)
    plan = json.loads(cli("plan", "--root", root, "--policy", CASE / "policy.toml", "--format", "json")[1])
    (keep,) = [c for c in plan["changes"] if c["id"] == "net.irq.boot"]
    assert "/etc/systemd/system/numatune-boot.service" in {w["path"] for w in keep["writes"]}


def test_the_sysv_script_runs_boot_for_either_file():
    script = (REPO / "packaging/sysv/numatune-boot").read_text()
    assert '[ -f "$CONF" ] || [ -f "$REPLAY" ] || exit 0' in script
    assert "REPLAY=/etc/numatune/boot-replay.json" in script
    assert "out=$(/usr/bin/numatune boot 2>&1)" in script
