"""`numatune check` on copies of a real capture: every format read back by a
real consumer, Nagios exit codes per severity, waivers, and nothing written."""
import importlib.util
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import REPO, tree_digest, write

CAPTURE = "16amd64-4n4c-cgroup-distance-merge"  # 4 sockets, 4 nodes, no bootloader files: small
SYSCTL_ONLY = """
[policy]
name = "sysctl-only"
[sysctl]
"kernel.numa_balancing" = { value = 0, why = "SGA pages ping-pong between nodes" }
"vm.zone_reclaim_mode" = 0
"""


@pytest.fixture
def host(capture, tmp_path):
    """A capture with both sysctls off-policy, and a policy that only sets them."""
    root = capture(CAPTURE)
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n")
    policy = write(tmp_path, "policy.toml", SYSCTL_ONLY)
    return root, policy


def _persist(root, **values):
    write(root, "/etc/sysctl.d/90-numatune.conf", "".join("%s = %s\n" % kv for kv in values.items()))


def _check(cli, root, policy, *extra):
    return cli("check", "--root", root, "--policy", policy, *extra)


def test_json_is_the_plan_plus_a_verdict_and_check_writes_nothing(cli, host):
    root, policy = host
    before = tree_digest(root, ignore=())
    status, out, err = _check(cli, root, policy, "--format", "json")
    assert tree_digest(root, ignore=()) == before
    doc = json.loads(out)
    assert status == doc["status"] == 2 and doc["status_text"] == "CRITICAL"
    assert {c["id"] for c in doc["changes"]} >= {"sysctl.live:kernel.numa_balancing"}
    by_id = {r["id"]: r for r in doc["results"]}
    live = by_id["sysctl.live:kernel.numa_balancing"]
    assert (live["severity"], live["state"], live["current"], live["desired"]) == ("critical", "drift", "1", "0")
    assert live["policy_key"] == "sysctl.kernel.numa_balancing" and live["subject"] == "kernel.numa_balancing"
    assert doc["counts"]["critical"] == sum(1 for r in doc["results"] if r["severity"] == "critical")


def test_prometheus_file_parses_and_follows_the_host(cli, host, tmp_path):
    from prometheus_client.parser import text_string_to_metric_families
    root, policy = host
    prom = tmp_path / "textfile" / "numatune.prom"
    prom.parent.mkdir()
    status, out, err = _check(cli, root, policy, "--format", "prometheus", "--out", prom)
    assert status == 2
    assert out.startswith("numatune CRITICAL - ") and out.count("\n") == 1  # one line for the journal
    assert os.listdir(prom.parent) == ["numatune.prom"]  # the temporary file was renamed, not left
    assert prom.stat().st_mode & 0o777 == 0o644

    def samples():
        families = {f.name: f for f in text_string_to_metric_families(prom.read_text())}
        return {(s.name, s.labels.get("rule")): s for f in families.values() for s in f.samples}, families

    got, families = samples()
    assert families["numatune_rule_compliant"].type == "gauge"
    rule = ("numatune_rule_compliant", "sysctl.live:kernel.numa_balancing")
    assert got[rule].value == 0
    assert got[rule].labels == {"rule": "sysctl.live:kernel.numa_balancing", "area": "kernel",
                                "target": "kernel.numa_balancing"}
    assert got[("numatune_drift_rules", None)].value == 4  # live + persistent, two keys
    assert got[("numatune_check_status", None)].value == 2
    assert abs(got[("numatune_last_check_timestamp_seconds", None)].value - __import__("time").time()) < 60
    series = [(s.name, tuple(sorted(s.labels.items()))) for f in families.values() for s in f.samples]
    assert len(series) == len(set(series))

    # The host follows the policy now: the same series flips to 1.
    write(root, "/proc/sys/kernel/numa_balancing", "0\n")
    write(root, "/proc/sys/vm/zone_reclaim_mode", "0\n")
    _persist(root, **{"kernel.numa_balancing": 0, "vm.zone_reclaim_mode": 0})
    status, out, err = _check(cli, root, policy, "--format", "prometheus", "--out", prom)
    assert status == 0, out + err
    got, families = samples()
    # A compliant rule has no series of its own (a fleet's hosts hold tens of thousands): its rule's count says it.
    assert rule not in got and got[("numatune_drift_rules", None)].value == 0
    counts = {(s.labels["check"], s.labels["area"], s.labels["state"]): s.value
              for s in families["numatune_rule_targets"].samples}
    assert counts[("sysctl.live", "kernel", "compliant")] >= 1 and counts[("sysctl.live", "kernel", "drift")] == 0


def test_junit_has_the_shape_ci_dashboards_read(cli, host):
    root, policy = host
    _persist(root, **{"vm.zone_reclaim_mode": 0})
    write(root, "/proc/sys/vm/zone_reclaim_mode", "0\n")
    status, out, err = _check(cli, root, policy, "--format", "junit")
    top = ET.fromstring(out.encode())
    assert top.tag == "testsuites"
    suites = top.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    cases = suite.findall("testcase")
    for element in (top, suite):
        assert int(element.get("tests")) == len(cases)
        assert int(element.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)
        assert int(element.get("errors")) == 0
    assert int(suite.get("skipped")) == sum(1 for c in cases if c.find("skipped") is not None)
    assert top.get("skipped") is None  # not allowed on <testsuites> by the junit-10 schema
    assert {p.get("name"): p.get("value") for p in suite.find("properties")}["status"] == "CRITICAL"
    names = [c.get("name") for c in cases]
    assert len(names) == len(set(names)) and all(c.get("classname").startswith("numatune.") for c in cases)
    failure = next(c for c in cases if c.get("name") == "sysctl.live:kernel.numa_balancing").find("failure")
    assert failure.get("type") == "critical"
    assert "current: 1" in failure.text and "desired: 0" in failure.text
    passed = next(c for c in cases if c.get("name") == "sysctl.live:vm.zone_reclaim_mode")
    assert passed.find("failure") is None and passed.find("skipped") is None

    # And a real JUnit consumer reads the same.
    junitparser = pytest.importorskip("junitparser")
    xml = junitparser.JUnitXml.fromstring(out)
    parsed = {case.name: case for suite in xml for case in suite}
    assert set(parsed) == set(names)
    assert not parsed["sysctl.live:vm.zone_reclaim_mode"].result
    assert parsed["sysctl.live:kernel.numa_balancing"].result[0].type == "critical"


NAGIOS = re.compile(r"^NUMATUNE (OK|WARNING|CRITICAL|UNKNOWN) - [^|\n]+"
                    r"(?: \| ((?:'?[A-Za-z_]+'?=\d+(?:;\d*){0,4} ?)+))?\n$")


@pytest.mark.parametrize("live,persisted,expected", [
    ("0", True, (0, "OK")),            # live and boot-time files right
    ("0", False, (1, "WARNING")),      # right now, lost at the next reboot
    ("1", True, (2, "CRITICAL")),      # the running host drifts
])
def test_nagios_line_and_exit_code_per_severity(cli, host, live, persisted, expected):
    root, policy = host
    write(root, "/proc/sys/kernel/numa_balancing", live + "\n")
    write(root, "/proc/sys/vm/zone_reclaim_mode", "0\n")
    _persist(root, **({"kernel.numa_balancing": 0} if persisted else {}), **{"vm.zone_reclaim_mode": 0})
    status, out, err = _check(cli, root, policy, "--format", "nagios")
    m = NAGIOS.match(out)
    assert m, out
    assert (status, m.group(1)) == expected
    perf = dict(p.split("=", 1) for p in m.group(2).split())
    # One rule drifts in either bad case: the live value, or only its boot-time file.
    assert int(perf["drift"].split(";")[0]) == (0 if expected[0] == 0 else 1)
    assert int(perf["critical"].split(";")[0]) == (expected[0] == 2)
    if importlib.util.find_spec("nagiosplugin"):  # the RPM's %check runs this without it
        assert _perf_state(perf) == expected[0]


def _perf_state(perf):
    """The state a Nagios consumer derives from the perfdata thresholds alone, with the plugin
    guidelines' range rules (nagiosplugin's Range: a value outside the range alerts)."""
    Range = pytest.importorskip("nagiosplugin").Range
    state = 0
    for label, level in (("warning", 1), ("critical", 2)):
        value, warn, crit = (perf[label].split(";") + ["", ""])[:3]
        for threshold, if_alert in ((warn, 1), (crit, 2)):
            if threshold and not Range(threshold).match(float(value)):
                state = max(state, if_alert)
    return state


@pytest.mark.parametrize("critical,warning,state", [(0, 0, 0), (0, 1, 1), (1, 0, 2), (1, 5, 2), (3, 0, 2)])
def test_nagios_thresholds_follow_the_range_rules(critical, warning, state):
    """`critical=1;;0` is CRITICAL under the range rules (`;;1` was not: 1 is inside 0..1)."""
    import datetime
    from numatune.report import nagios
    from numatune.report.compliance import Report, Result
    results = [Result(id="c%d" % i, area="kernel", state="drift", severity="critical", message="c")
               for i in range(critical)]
    results += [Result(id="w%d" % i, area="kernel", state="drift", severity="warning", message="w")
                for i in range(warning)]
    report = Report(host={}, policy="p", checked_at=datetime.datetime.now(datetime.timezone.utc), results=results)
    m = NAGIOS.match(nagios.render(report))
    perf = dict(p.split("=", 1) for p in m.group(2).split())
    assert _perf_state(perf) == report.status == state


def _boot(root, grub_args, booted):
    write(root, "/etc/default/grub", 'GRUB_CMDLINE_LINUX="%s"\n' % grub_args)
    write(root, "/boot/loader/entries/0a1b-5.14.0-503.el9.x86_64.conf",
          "title Red Hat Enterprise Linux (5.14.0-503.el9.x86_64) 9.5\nversion 5.14.0-503.el9.x86_64\n"
          "linux /vmlinuz-5.14.0-503.el9.x86_64\noptions root=/dev/mapper/rhel-root ro %s\n" % grub_args)
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro %s\n" % booted)
    return write(root.parent, "numa.toml", '[kernel.cmdline]\nabsent = ["numa=off"]\n')


def test_numa_off_on_a_multi_socket_host_is_critical(cli, capture):
    root = capture(CAPTURE)
    policy = _boot(root, "quiet numa=off", "quiet numa=off")
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    doc = json.loads(out)
    assert status == 2, out
    sev = {r["id"]: r["severity"] for r in doc["results"]}
    assert sev["cmdline.numa-off"] == "critical" and sev["cmdline.remove:numa=off"] == "critical"


def test_a_fix_waiting_for_a_reboot_is_a_warning_with_what_it_clears(cli, capture):
    root = capture(CAPTURE)
    policy = _boot(root, "quiet", "quiet numa=off")  # fixed in grub, not yet rebooted
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    doc = json.loads(out)
    assert status == 1, out
    states = {r["id"]: (r["state"], r["severity"]) for r in doc["results"]}
    assert states["cmdline.reboot-pending:numa=off"] == ("pending", "warning")
    assert states["cmdline.numa-off"] == ("pending", "warning")  # the reboot clears it


WAIVER = """
[[waiver]]
rule = "%s"
reason = "vendor case 4711"
expires = %s
"""


@pytest.mark.parametrize("rule,expires,status,state", [
    ("sysctl.kernel.numa_balancing", '"2999-12-31"', 0, "waived"),   # policy key, quoted date
    ("sysctl.*:kernel.numa_balancing", "2999-12-31", 0, "waived"),   # glob on the id, TOML date
    ("sysctl.kernel.numa_balancing", '"2000-01-01"', 2, "drift"),    # expired: counts as drift
])
def test_waivers(cli, host, tmp_path, rule, expires, status, state):
    root, policy = host
    write(root, "/proc/sys/vm/zone_reclaim_mode", "0\n")
    _persist(root, **{"vm.zone_reclaim_mode": 0})
    site = write(tmp_path, "site.toml", '[policy]\nextends = ["%s"]\n' % policy + WAIVER % (rule, expires))
    got, out, err = cli("check", "--root", root, "--policy", site, "--format", "json")
    doc = json.loads(out)
    assert got == doc["status"] == status, err
    mine = [r for r in doc["results"] if r["policy_key"] == "sysctl.kernel.numa_balancing"]
    assert len(mine) == 2 and {r["state"] for r in mine} == {state}
    assert all(r["waiver"]["reason"] == "vendor case 4711" for r in mine)
    assert all(r["waiver"]["expired"] == (state == "drift") for r in mine)
    assert doc["counts"]["waived"] == (2 if state == "waived" else 0)
    # Plan and apply ignore waivers: the drift is still in the plan.
    assert {c["rule"] for c in doc["changes"]} == {"sysctl.kernel.numa_balancing"}


def test_a_waiver_that_matches_nothing_is_named(cli, host, tmp_path):
    root, policy = host
    site = write(tmp_path, "site.toml", '[policy]\nextends = ["%s"]\n' % policy
                 + WAIVER % ("sysctl.kernel.numa_balancnig", '"2999-12-31"'))
    status, out, err = cli("check", "--root", root, "--policy", site)
    assert status == 2
    assert "waiver for 'sysctl.kernel.numa_balancnig'" in out and "matches no drift" in out


@pytest.mark.parametrize("body,message", [
    ('rule = "x"\nreason = "y"\n', "waiver[0] needs expires"),
    ('rule = "x"\nexpires = "2030-01-01"\n', "waiver[0] needs reason"),
    ('rule = "x"\nreason = "y"\nexpires = "2030-02-30"\n', "not a date"),
    ('rule = "x"\nreason = "y"\nexpires = "2030-01-01"\nowner = "me"\n', "unknown key 'owner'"),
])
def test_bad_waivers_are_one_line_errors_with_file_and_line(cli, host, tmp_path, body, message):
    root, policy = host
    site = write(tmp_path, "site.toml", "[policy]\nname = \"s\"\n\n[[waiver]]\n" + body)
    status, out, err = cli("plan", "--root", root, "--policy", site)
    assert status == 2 and message in err and "site.toml:" in err and len(err.strip().splitlines()) == 1
    status, out, err = cli("check", "--root", root, "--policy", site, "--format", "nagios")
    assert status == 3 and out.startswith("NUMATUNE UNKNOWN - ") and message in out


def test_could_not_check_is_unknown_in_every_format(cli, host, tmp_path):
    from prometheus_client.parser import text_string_to_metric_families
    root, policy = host
    missing = tmp_path / "no-such-root"
    status, out, err = cli("check", "--root", missing, "--format", "json")
    assert status == 3 and json.loads(out)["status_text"] == "UNKNOWN" and "no such directory" in err
    status, out, err = cli("check", "--root", missing, "--format", "junit")
    assert status == 3 and ET.fromstring(out).find("testsuite").get("errors") == "1"
    prom = tmp_path / "n.prom"
    prom.write_text("numatune_rule_compliant{rule=\"stale\",area=\"kernel\",target=\"x\"} 1\n")
    status, out, err = cli("check", "--root", missing, "--format", "prometheus", "--out", prom)
    assert status == 3
    values = {s.name: s.value for f in text_string_to_metric_families(prom.read_text()) for s in f.samples}
    assert values["numatune_check_status"] == 3 and "numatune_rule_compliant" not in values
    assert "numatune_last_check_timestamp_seconds" not in values  # no check ever succeeded here

    # After a good check, an UNKNOWN keeps that check's time, so "the check is stale" alerts fire.
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "prometheus", "--out", prom)
    good = {s.name: s.value for f in text_string_to_metric_families(prom.read_text()) for s in f.samples}
    status, out, err = cli("check", "--root", missing, "--format", "prometheus", "--out", prom)
    values = {s.name: s.value for f in text_string_to_metric_families(prom.read_text()) for s in f.samples}
    assert status == 3 and values["numatune_check_status"] == 3 and "numatune_rule_compliant" not in values
    assert values["numatune_last_check_timestamp_seconds"] == good["numatune_last_check_timestamp_seconds"]
    status, out, err = cli("check", "--root", root, "--policy", policy, "--formta", "json")
    assert status == 3  # a wrong flag is "could not check" for a monitor, not CRITICAL


def test_out_is_atomic_when_the_write_fails(host, monkeypatch, tmp_path):
    from numatune.report import check
    target = tmp_path / "numatune.prom"
    target.write_text("old\n")

    def broken(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(check.os, "fsync", broken)
    with pytest.raises(OSError):
        check.write_atomically(str(target), "new\n")
    assert target.read_text() == "old\n" and [n for n in os.listdir(tmp_path) if "numatune" in n] == ["numatune.prom"]


def test_check_imports_nothing_heavy(host):
    root, policy = host
    code = ("import sys; from numatune.cli import main; rc = main(['check', '--root', %r, '--policy', %r, "
            "'--format', 'prometheus']); heavy = [m for m in ('textual', 'pyroute2', 'oracledb', 'pyudev') "
            "if m in sys.modules]; sys.stderr.write('HEAVY=%%s' %% heavy)" % (str(root), str(policy)))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(REPO),
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert "HEAVY=[]" in proc.stderr, proc.stderr


def test_check_of_this_real_host_as_a_real_process():
    """The real kernel of this VM, read-only: whatever it drifts, the report parses and
    the exit code is the status it states (never 3: the host can be checked)."""
    from prometheus_client.parser import text_string_to_metric_families
    from conftest import run_cli
    status, out, err = run_cli("check", "--policy", "oracle-numa", "--format", "prometheus")
    values = {s.name: s.value for f in text_string_to_metric_families(out) for s in f.samples
              if not s.labels}
    assert status == values["numatune_check_status"] and status in (0, 1, 2), err
    status, out, err = run_cli("check", "--policy", "oracle-numa", "--format", "nagios")
    assert NAGIOS.match(out) and out.startswith("NUMATUNE %s" % ("OK", "WARNING", "CRITICAL")[status]), out


def test_text_report_in_a_file_has_no_terminal_colours(host, tmp_path, monkeypatch):
    import io
    from types import SimpleNamespace
    from numatune import commands
    from numatune.report import check

    class Terminal(io.StringIO):
        def isatty(self):
            return True
    root, policy = host
    out = tmp_path / "report.txt"
    monkeypatch.setattr("sys.stdout", Terminal())
    monkeypatch.delenv("NO_COLOR", raising=False)
    args = SimpleNamespace(root=str(root), policy=[str(policy)], only=[], skip=[], format="text", out=str(out))
    assert check.run(args, commands._prepare, commands.engine.make_plan) == 2
    assert "\x1b[" not in out.read_text() and out.read_text().startswith("numatune CRITICAL - ")
    args.out = None
    check.run(args, commands._prepare, commands.engine.make_plan)
    assert "\x1b[" in __import__("sys").stdout.getvalue()  # on a terminal it is coloured
