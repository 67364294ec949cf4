"""The real reboot (issue #35): one Debian 12 disk booted three times through its own GRUB with systemd as PID 1
(build-image.sh, boot.sh), numatune installed on it as the RPM installs it (/usr/bin/numatune, the units).

Boot 1: numa=off on GRUB's command line, tuned active, the NIC (e1000e) under NetworkManager, scsi_debug paths as a
3PAR array (3PAR's NAA-6 WWIDs) under multipathd; `numatune apply` of a site policy extending the shipped default
(oracle-numa) with HugePages on node 1, a cpuset on node 1, the NIC's MTU and coalescing, and a dated waiver for the
one NIC's interrupt skew. numa=off hides node 1 from that boot; the
firmware's SRAT gives it to the next one, so the pool and the cpuset are planned for that boot and pending (apply
exits 0). Boot 2: with nothing applied, 2 nodes, every value is back, the pool is on node 1 (by whichever route the
plan chose for this kernel) and the cpuset's slice has mems 1; `check` OK (exit 0, no warning), `plan --exit-code`
0, numatune-check.service runs sandboxed and writes its report (status 0); then `numatune revert --last`. Boot 3:
every value as before boot 1.

Runs on the host (tests/lab/run.sh); each boot's guest output is printed when an assertion fails."""
import base64
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from numatune.facts import srat

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
W = Path(os.environ.get("W", "/var/tmp/numatune-realboot"))
DISK = W / "reboot.raw"
# What the site's hardware and daemons give numatune to work on (site.sh, probe.sh).
NODE1_CPUS = "2-3"      # boot.sh: 2 nodes x 2 vCPUs
LAST = 3                # boots of the disk
DEPS = ("pyroute2", "pyudev", "prometheus_client", "tomlkit")


def sh(*argv, **kw):
    return subprocess.run([str(a) for a in argv], check=True, text=True, **kw)


def wheels(tmp):
    """This checkout's wheel and its runtime dependencies' (the versions its .venv runs), for an offline guest."""
    out = tmp / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out)]
    # With the .venv's own setuptools when it has one: pip's isolated build first installs setuptools from the
    # index (the wheel in 15 s instead of 5 s, measured here).
    if subprocess.run(build + ["--no-build-isolation", str(REPO)], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        sh(*build, REPO, stdout=subprocess.DEVNULL)
    from importlib.metadata import version
    pins = ["%s==%s" % (d, version(d)) for d in DEPS]
    cache = W / ("wheels-" + "-".join(p.replace("==", "_") for p in pins))
    if not cache.is_dir():
        sh(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(cache) + ".part", *pins,
           stdout=subprocess.DEVNULL)
        os.rename(str(cache) + ".part", cache)
    for whl in cache.glob("*.whl"):
        shutil.copy(whl, out)
    return out


class Boot:
    def __init__(self, n, rc, out, seconds):
        self.n, self.rc, self.out, self.seconds = n, rc, out, seconds
        self.values = dict(re.findall(r"(?m)^P ([^=\n]+)=(.*)$", out))
        self.rcs = {k: int(v) for k, v in re.findall(r"(?m)^RC ([\w-]+)=(\d+)$", out)}

    def phases(self):
        """"boot 77, ready.tuned 20, ..., power-off 9" (seconds): QEMU's start to the command's (host clock), each
        phase the steps marked with `lap` (guest uptime), the command's end to QEMU's exit (host clock)."""
        laps = [(k, float(v)) for k, v in re.findall(r"(?m)^LAP (\S+) ([\d.]+)$", self.out)]
        host = re.search(r"host ([\d.]+)s, ended at host ([\d.]+)s", self.out)
        parts = ["boot %.0f" % float(host.group(1))] if host else []
        parts += ["%s %.0f" % (k, t - laps[i - 1][1]) for i, (k, t) in enumerate(laps) if i]
        if host:
            parts.append("power-off %.0f" % (self.seconds - float(host.group(2))))
        return ", ".join(parts)

    def section(self, name):
        """The probe values printed after '== name' (boot 1 prints two sets)."""
        part = self.out.split("== %s\n" % name, 1)[1].split("\n== ", 1)[0]
        return dict(re.findall(r"(?m)^P ([^=\n]+)=(.*)$", part))

    def explain(self):
        return "\n---- guest output of boot %d (status %d, %.0f s) ----\n%s" % (self.n, self.rc, self.seconds, self.out)


def boot(n, timings):
    steps = HERE / "steps"
    text = "probe() {\n%s\n}\n%s\n%s\n" % ((steps / "probe.sh").read_text(), (steps / "ready.sh").read_text(),
                                          (steps / ("boot%d.sh" % n)).read_text())
    env = dict(os.environ, BOOT_NIC="1", BOOT_NIC_MODEL="e1000e", BOOT_TIMEOUT=os.environ.get("BOOT_TIMEOUT", "1800"),
               BOOT_RUN=str(W / ("boot%d" % n)), W=str(W))
    if n == LAST:
        env["BOOT_FASTOFF"] = "1"  # no boot reads the disk after the last: its orderly shutdown proves nothing
    shutil.rmtree(W / ("boot%d" % n), ignore_errors=True)
    t0 = time.monotonic()
    proc = subprocess.run([str(HERE / "boot.sh"), str(DISK), text], env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    b = Boot(n, proc.returncode, proc.stdout, time.monotonic() - t0)
    timings.append("boot %d: %.0f s (%s)" % (n, b.seconds, b.phases()))
    print("realboot: boot %d took %.0f s (status %d)" % (n, b.seconds, b.rc), file=sys.__stderr__, flush=True)
    return b


@pytest.fixture(scope="module")
def timings():
    out = []
    yield out
    print("\nrealboot timings:\n  " + "\n  ".join(out), file=sys.__stderr__, flush=True)


@pytest.fixture(scope="module")
def disk(tmp_path_factory, timings):
    t0 = time.monotonic()
    build = subprocess.run([str(HERE / "build-image.sh")], text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=dict(os.environ, W=str(W)))
    assert build.returncode == 0, build.stdout
    timings.append("image %.0f s" % (time.monotonic() - t0))
    t0 = time.monotonic()
    whl = wheels(tmp_path_factory.mktemp("realboot"))
    timings.append("wheels %.0f s" % (time.monotonic() - t0))
    t0 = time.monotonic()
    sh("cp", "--sparse=always", W / "disk.golden.raw", DISK)
    timings.append("disk copy %.0f s" % (time.monotonic() - t0))
    t0 = time.monotonic()
    q = shlex.quote
    edit = subprocess.run([str(HERE / "img-edit.sh"), str(DISK), '%s "$M" %s %s && %s "$M"' % (
                           q(str(HERE / "install-numatune.sh")), q(str(whl)), q(str(REPO)), q(str(HERE / "site.sh")))],
                          text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=dict(os.environ, PY=sys.executable))
    assert edit.returncode == 0, edit.stdout
    print(edit.stdout, file=sys.stderr)
    timings.append("install + site %.0f s" % (time.monotonic() - t0))
    return DISK


@pytest.fixture(scope="module")
def boots(disk, timings):
    done = {}

    def get(n):
        for i in range(1, n + 1):
            if i not in done:
                done[i] = boot(i, timings)
        return done[n]
    return get


# Values that boot 1 sets live and boot 2 must get back with no apply.
KEPT = ("sysctl.kernel.numa_balancing", "sysctl.vm.zone_reclaim_mode", "thp.enabled", "nic.mtu", "nic.rx-usecs",
        "multipath.rr_min_io_rq")


def block(values):
    return {k: v for k, v in values.items() if k.startswith("block.")}


def firmware_cpus(b):
    """The CPUs of each node the guest's firmware (SRAT) gives the next boot, read by numatune's parser from the
    table and APIC ids boot 1 printed; None when it gives none."""
    table = base64.b64decode(re.search(r"(?m)^SRAT-B64 (\S*)$", b.out).group(1))
    cpuinfo = "\n".join(re.findall(r"(?m)^CPUINFO (.*)$", b.out))
    found = srat.nodes(table, srat.apic_cpus(cpuinfo))
    return [n["cpus"] for n in found] if found else None


def not_ok(b, after):
    """The ids of the WARNING/CRITICAL lines of the `check` printed after the line "after" (text output)."""
    part = b.out.split(after, 1)[1]
    part = part.split("\ncompliant (", 1)[0]
    return set(re.findall(r"(?m)^(?:CRITICAL|WARNING) +(\S+)", part))


def test_boot1_plans_node1_for_the_boot_that_brings_it(boots):
    """Boot 1: apply sets THP, the 3PAR queues, the NIC's MTU and coalescing and removes numa=off for the next boot;
    the pool and the cpuset on node 1, which numa=off hides and the firmware's SRAT describes, are planned for the
    next boot and pending: apply exits 0, check is not critical."""
    b = boots(1)
    before, after = b.section("before"), b.section("after")
    assert b.rc == 0, b.explain()
    assert before["nodes"] == "1" and before["cmdline.numa_off"] == "yes", b.explain()
    assert firmware_cpus(b) == [[0, 1], [2, 3]], b.explain()
    assert before["tuned.profile"] == "virtual-guest" and before["multipath.maps"] == "2", b.explain()
    assert before["nic.nm"].startswith("100"), b.explain()  # NetworkManager: connected
    assert "rolled back" not in b.out, b.explain()
    assert b.rcs.get("apply") == 0, b.explain()
    # check's text wraps its messages: the phrase is read with its line breaks folded.
    assert "waits for the reboot that removes numa=off" in " ".join(b.out.split()), b.explain()
    pending = set(after["pending"].split(","))
    assert {"hugepages.next-boot:node1", "cpuset.next-boot:labdb"} <= pending, b.explain()
    assert after["critical"] == "" and b.rcs.get("check") == 1, b.explain()
    # The live pool and cgroup wait for the reboot.
    assert after["hugepages.node0"] == "0" and after["cpuset.cpus"] == "", b.explain()
    assert after["thp.enabled"] == "always madvise [never]", b.explain()
    assert after["nic.mtu"] == "9000" and after["nic.rx-usecs"] == "50", b.explain()
    assert after["tuned.profile"] == "numatune", b.explain()
    paths = {k: v for k, v in block(after).items() if k.startswith("block.path.")}
    assert len(paths) == 12, b.explain()  # 4 sd paths x 3 settings
    assert {v for k, v in block(after).items() if ".rotational." in k} == {"0"}, b.explain()
    assert all(int(v) >= 1024 for k, v in block(after).items() if ".nr_requests." in k), b.explain()


def test_boot2_has_everything_with_the_pool_and_the_cpuset_on_node1(boots):
    """Boot 2, nothing applied: 2 nodes, every value boot 1 set is back, the pool is on node 1 and the cpuset's
    slice runs on node 1's CPUs with mems 1; check OK, plan --exit-code 0."""
    one, b = boots(1), boots(2)
    after, now = one.section("after"), b.section("boot2")
    assert b.rc == 0, b.explain()
    assert now["nodes"] == "2" and now["cmdline.numa_off"] == "no", b.explain()
    assert {k: now.get(k) for k in KEPT} == {k: after.get(k) for k in KEPT}, b.explain()
    assert block(now) == block(after), b.explain()
    assert now["tuned.active"] == "active" and now["tuned.profile"] == "numatune", b.explain()
    assert now["hugepages.node1"] == "64" and now["hugepages.node0"] == "0", b.explain()
    assert now["sysctl.vm.nr_hugepages"] == "64", b.explain()
    assert (now["cpuset.active"], now["cpuset.cpus"], now["cpuset.mems"]) == ("active", NODE1_CPUS, "1"), b.explain()
    # check OK: no warning, no critical. The maps are selected by their 3PAR WWID's OUI (site.sh gives the
    # scsi_debug LUNs 3PAR's NAA-6 WWIDs), so no rule names today's LUNs; the one-NIC skew is waived by the
    # lab's policy (boot1.sh), and a waiver is the only thing waived.
    assert not_ok(b, "\n== boot2\n") == set() and b.rcs.get("check") == 0, b.explain()
    assert now["waived"] in ("", "net.irq_skew"), b.explain()
    assert now["maps.uuid"] == "mpath-360002ac*", b.explain()
    assert b.rcs.get("plan") == 0, b.explain()


def test_boot2_check_unit_runs_sandboxed_and_writes_its_report(boots):
    """numatune-check.service, started by systemd, runs under the packaged unit's sandbox and writes an OK report."""
    b = boots(2)
    v = b.section("boot2")
    # `systemctl start` of a oneshot unit returns when it has run: 0 means it succeeded (SuccessExitStatus=1 2 takes
    # check's warning). Its Result/ExecMainStatus are not read: systemd unloads the inactive unit, and a fresh load
    # shows defaults. Its journal line is check's status line.
    assert b.rcs.get("check-unit") == 0, b.explain()
    assert re.search(r"(?m)^Starting numatune-check\.service.*\n(.*\n)*?numatune OK - .*\n"
                     r"numatune-check\.service: Deactivated successfully", b.out), b.explain()
    assert (v["unit.ProtectSystem"], v["unit.ProtectHome"], v["unit.NoNewPrivileges"], v["unit.PrivateDevices"],
            v["unit.PrivateTmp"]) == ("strict", "yes", "yes", "yes", "yes"), b.explain()
    assert v["unit.SystemCallFilter"] and v["unit.RestrictAddressFamilies"], b.explain()
    # The report (removed before the start) is the unit's, with check's status (a Prometheus float).
    assert int(v["unit.report"] or 0) > 0 and float(v["unit.report.status"]) == b.rcs.get("check") == 0, b.explain()
    assert b.rcs.get("revert") == 0, b.explain()


def test_boot3_is_back_to_before_boot1(boots):
    """Boot 3, after the revert: numa=off back (1 node), tuned's virtual-guest, MTU 1500, every value as before."""
    one, b = boots(1), boots(3)
    before, now = one.section("before"), b.section("boot3")
    assert b.rc == 0, b.explain()
    assert now["nodes"] == "1" and now["cmdline.numa_off"] == "yes", b.explain()
    assert now["tuned.profile"] == "virtual-guest" and now["nic.mtu"] == "1500", b.explain()
    assert now == before, b.explain()
