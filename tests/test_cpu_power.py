"""[cpu] governor and max_cstate: this VM has no cpufreq or cpuidle, so the
knobs are tested on roots with cpufreq/cpuidle trees made here (shaped like
an intel_pstate/intel_idle and an acpi-cpufreq/acpi_idle server), on top of
a real capture's topology; and on this VM's own capture, where they are a
finding."""
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import REALDATA, tree_digest, write

INSIGHTS = REALDATA / "grub" / "insights-core"
ENTRY = "3b1bf67095e94696b600ed25416e97a8-5.14.0-503.11.1.el9_5.x86_64.conf"
# (index, name, latency us) as intel_idle shows them on a Skylake server.
INTEL_STATES = [(0, "POLL", 0), (1, "C1", 2), (2, "C1E", 10), (3, "C6", 133)]
ACPI_STATES = [(0, "POLL", 0), (1, "C1", 1), (2, "C2", 41), (3, "C3", 400)]


def make_power_root(root, cpus, idle_driver="intel_idle", freq_driver="intel_pstate", governor="powersave",
                    available="performance powersave", shared_policy=2, states=INTEL_STATES, disabled=(),
                    affected=True):
    """cpufreq policies (``shared_policy`` CPUs each, linked like the kernel
    does) and cpuidle states under ``root``."""
    cpu_dir = Path(root) / "sys/devices/system/cpu"
    if freq_driver:
        for cpu in cpus:
            policy = cpu_dir / "cpufreq" / ("policy%d" % (cpu - cpu % shared_policy))
            if not policy.exists():
                policy.mkdir(parents=True)
                (policy / "scaling_governor").write_text(governor + "\n")
                (policy / "scaling_available_governors").write_text(available + "\n")
                (policy / "scaling_driver").write_text(freq_driver + "\n")
                if affected:
                    first = cpu - cpu % shared_policy
                    (policy / "affected_cpus").write_text(" ".join(map(str, range(first, first + shared_policy))) + "\n")
            (cpu_dir / ("cpu%d" % cpu)).mkdir(parents=True, exist_ok=True)
            os.symlink("../cpufreq/" + policy.name, cpu_dir / ("cpu%d" % cpu) / "cpufreq")
    if idle_driver:
        write(root, "/sys/devices/system/cpu/cpuidle/current_driver", idle_driver + "\n")
        write(root, "/sys/devices/system/cpu/cpuidle/current_governor_ro", "menu\n")
        for cpu in cpus:
            for index, name, latency in states:
                base = "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/" % (cpu, index)
                write(root, base + "name", name + "\n")
                write(root, base + "latency", "%d\n" % latency)
                write(root, base + "disable", "1\n" if (cpu, index) in disabled else "0\n")


def online(root):
    text = (Path(root) / "sys/devices/system/cpu/online").read_text().strip()
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def plan(cli, root, pol, *extra):
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--format", "json", *extra)
    assert status == 0, err
    return json.loads(out)


@pytest.fixture
def server(capture):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    write(root, "/proc/sys/kernel/osrelease", "5.14.0-427.el9.x86_64\n")
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro crashkernel=auto\n")
    # A real RHEL 9.5 BLS entry and /etc/default/grub: the boot arguments land in both.
    write(root, "/boot/loader/entries/" + ENTRY, (INSIGHTS / "boot/loader/entries" / ENTRY).read_text())
    write(root, "/etc/default/grub", (INSIGHTS / "etc/default/grub.rhel8-blscfg").read_text())
    return root


def test_intel_server_plans_governor_cstates_and_boot_args_then_reverts_exactly(server, cli, tmp_path):
    cpus = online(server)
    make_power_root(server, cpus, disabled={(5, 3)})
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\nmax_cstate = 1\nwhy = "latency"\n')
    p = plan(cli, server, pol, "--only", "cpu")
    ids = {c["id"]: c for c in p["changes"]}
    gov = ids["cpu.governor"]
    # 16 CPUs, two per policy: 8 writes, one per policy directory.
    assert len(gov["writes"]) == len(cpus) // 2 and gov["current"] == "powersave"
    cst = ids["cpu.cstates"]
    # C1E and C6 on every CPU, but cpu5's C6 is already disabled.
    assert len(cst["writes"]) == 2 * len(cpus) - 1 and cst["current"] == "enabled: C1E,C6"
    assert all("/state0/" not in w["path"] and "/state1/" not in w["path"] for w in cst["writes"])
    # intel_pstate chooses its own policy at boot: no default_governor argument, a finding instead.
    assert "cpu.boot:cpufreq.default_governor" not in ids
    assert "cpu.governor-boot" in {f["id"] for f in p["findings"]}
    boot = ids["cpu.boot:intel_idle.max_cstate"]
    assert boot["scope"] == "boot" and boot["reboot_required"] and boot["desired"] == "intel_idle.max_cstate=1"

    before = tree_digest(server)
    status, out, err = cli("apply", "--root", server, "--policy", pol, "--only", "cpu", "--yes")
    assert status == 0, err + out
    assert (server / "sys/devices/system/cpu/cpufreq/policy4/scaling_governor").read_text() == "performance\n"
    assert (server / "sys/devices/system/cpu/cpu7/cpuidle/state2/disable").read_text() == "1\n"
    assert (server / "sys/devices/system/cpu/cpu7/cpuidle/state1/disable").read_text() == "0\n"
    assert "intel_idle.max_cstate=1" in (server / "etc/default/grub").read_text()
    assert "intel_idle.max_cstate=1" in (server / "boot/loader/entries" / ENTRY).read_text()
    assert plan(cli, server, pol, "--only", "cpu")["changes"] == []
    status, out, err = cli("revert", "--last", "--root", server)
    assert status == 0, err + out
    assert tree_digest(server) == before


def test_acpi_idle_uses_processor_max_cstate_and_default_governor(server, cli, tmp_path):
    # No affected_cpus (an old kernel): the per-CPU cpufreq links are read instead.
    make_power_root(server, online(server), idle_driver="acpi_idle", freq_driver="acpi-cpufreq",
                    governor="ondemand", available="conservative ondemand userspace powersave performance",
                    shared_policy=1, states=ACPI_STATES, affected=False)
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\nmax_cstate = 2\n')
    ids = {c["id"]: c for c in plan(cli, server, pol, "--only", "cpu")["changes"]}
    assert ids["cpu.boot:processor.max_cstate"]["desired"] == "processor.max_cstate=2"
    assert ids["cpu.boot:cpufreq.default_governor"]["desired"] == "cpufreq.default_governor=performance"
    assert ids["cpu.cstates"]["current"] == "enabled: C3"
    assert len(ids["cpu.governor"]["writes"]) == len(online(server))


def test_old_kernel_gets_no_default_governor_and_refused_governor_is_a_finding(server, cli, tmp_path):
    write(server, "/proc/sys/kernel/osrelease", "3.10.0-1160.el7.x86_64\n")
    make_power_root(server, online(server), freq_driver="acpi-cpufreq", available="ondemand powersave")
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\n')
    p = plan(cli, server, pol, "--only", "cpu")
    assert p["changes"] == []
    (f,) = [f for f in p["findings"] if f["id"] == "cpu.governor-refused"]
    assert "offers ondemand powersave, not 'performance'" in f["message"]


def test_pm_qos_holder_is_reported(server, cli, tmp_path):
    make_power_root(server, online(server))
    write(server, "/proc/4321/comm", "tuned\n")
    (server / "proc/4321/fd").mkdir()
    os.symlink("/dev/null", server / "proc/4321/fd/0")
    os.symlink("/dev/cpu_dma_latency", server / "proc/4321/fd/7")
    pol = write(tmp_path, "p.toml", "[cpu]\nmax_cstate = 1\n")
    (f,) = [f for f in plan(cli, server, pol)["findings"] if f["id"].startswith("cpu.pm-qos")]
    assert f["id"] == "cpu.pm-qos:4321" and "tuned (pid 4321)" in f["message"]


def test_this_vm_capture_has_no_cpufreq_or_cpuidle(cli, tmp_path):
    root = tmp_path / "vm"
    shutil.copytree(REALDATA / "this-vm", root)
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\nmax_cstate = 1\n')
    before = tree_digest(root)
    p = plan(cli, root, pol, "--only", "cpu")
    assert p["changes"] == []
    assert {"cpu.no-cpufreq", "cpu.no-cpuidle"} <= {f["id"] for f in p["findings"]}
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--yes")
    assert status == 0, err
    assert tree_digest(root) == before


def test_the_real_vm_plans_without_error(cli, tmp_path):
    # The live kernel here has no cpufreq/cpuidle: planning must say so, not fail.
    pol = write(tmp_path, "p.toml", '[cpu]\ngovernor = "performance"\nmax_cstate = 1\n')
    status, out, err = cli("plan", "--root", "/", "--policy", pol, "--only", "cpu", "--format", "json")
    assert status == 0, err
    ids = {f["id"] for f in json.loads(out)["findings"]}
    has_freq = os.path.isdir("/sys/devices/system/cpu/cpu0/cpufreq")
    assert ("cpu.no-cpufreq" in ids) == (not has_freq)


@pytest.mark.parametrize("text,words", [("[cpu]\nmax_cstate = 0\n", "below the minimum"),
                                        ('[cpu]\ngovernor = "Perf ormance"\n', "not a valid value"),
                                        ("[cpu]\ngovernor = 1\n", "must be a string"),
                                        ('[cpu]\nmax_cstates = 1\n', "did you mean 'max_cstate'")])
def test_bad_cpu_policy_is_one_line(text, words, cli, tmp_path):
    status, out, err = cli("plan", "--root", tmp_path, "--policy", write(tmp_path, "p.toml", text))
    assert status == 2 and len(err.strip().splitlines()) == 1 and words in err, err
