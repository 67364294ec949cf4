"""Every consumer accepts every output (issue 27): text from the host with control characters, bytes that
are not UTF-8 (kept by surrogateescape) and XML's non-characters goes through every format of `check`, and
each format's own parser reads the result: JUnit through expat and xmlschema (xmllint with the junit-10
XSD where installed), Prometheus through prometheus_client's parser (promtool where installed), the
Nagios line split as Nagios splits it and its thresholds read by nagiosplugin's Range, JSON by json.

Before: an ESC in an alert log line went raw into the JUnit XML ("invalid character in attribute value")
and into the Nagios status line."""
import datetime
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from numatune.model import Change, Finding, Plan
from numatune.report import compliance, render, render_error
from numatune.report.grouped import clean
from test_monitoring_formats import JUNIT_XSD

NOW = datetime.datetime(2026, 6, 1, 12, tzinfo=datetime.timezone.utc)
FORMATS = ("text", "json", "junit", "prometheus", "nagios")
# What a host can put in a file numatune reads: C0 and C1 controls, DEL, a byte that is not UTF-8, U+FFFE.
NASTY = [chr(c) for c in range(0, 0x20)] + ["\x7f", "\x85", "\x9b", "\udcff", "\udc80", "\ufffe", "\uffff",
                                           "|", '"', "\\", "<", "&", "]", ">", "é", "\u2028"]
HOST_TEXT = st.text(st.one_of(st.sampled_from(NASTY), st.characters(codec="utf-8")), min_size=1, max_size=12)
# Outside the host's text, only a tab and a newline may be in a line-based format.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _report(text, hostname):
    change = Change(id="sysctl.live:kernel." + text, area="kernel", target="kernel." + text, current=text,
                    desired="0", scope="live", action="write", rule="sysctl.kernel.x", why="why " + text)
    finding = Finding(id="oracle.alert:" + text, severity="warning", area="oracle", family="oracle",
                      target="/u01/alert_" + text + ".log", rule="oracle.evidence",
                      message="alert log: " + text)
    plan = Plan(host={"hostname": hostname, "root": "/" + text}, changes=[change], findings=[finding])
    return compliance.build(plan, {}, now=NOW, policy_name="site " + text)


def _junit(out):
    xmlschema = pytest.importorskip("xmlschema")
    ET.fromstring(out.encode("utf-8"))  # expat: the parser most CI tools sit on
    xmlschema.XMLSchema(JUNIT_XSD).validate(out)


def _prometheus(out, text):
    from prometheus_client.parser import text_string_to_metric_families
    labels = [s.labels for f in text_string_to_metric_families(out) for s in f.samples]
    # A label holds the host's text escaped as the text format shows it, whatever the text was.
    assert {"rule": "sysctl.live:kernel." + clean(text), "area": "kernel", "target": "kernel." + clean(text)} \
        in labels, labels


def _nagios(out):
    nagiosplugin = pytest.importorskip("nagiosplugin")
    assert out.endswith("\n") and out.count("\n") == 1
    status, _, perfdata = out.rstrip("\n").partition(" | ")
    assert "|" not in status and not CONTROL.search(status)
    for item in perfdata.split():
        label, _, values = item.partition("=")
        value, warn, crit, low = values.split(";")
        for threshold in (warn, crit):
            nagiosplugin.Range(threshold)  # raises on a range Nagios could not read
        assert re.match(r"^[a-z]+$", label) and int(value) >= 0


def _consumed(fmt, out, text, report):
    out.encode("utf-8")  # no lone surrogate: every format is valid UTF-8
    if fmt == "junit":
        _junit(out)
    elif fmt == "prometheus":
        _prometheus(out, text)
    elif fmt == "nagios":
        _nagios(out)
    elif fmt == "json":
        doc = json.loads(out)
        # JSON escapes what it must and keeps the host's values exactly: scripts compare them.
        assert {r["current"] for r in doc["results"]} >= {text}
    else:
        assert not CONTROL.search(out.replace("\n", "")), out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=HOST_TEXT, hostname=st.one_of(st.just(""), HOST_TEXT))
@example(text="\udc80", hostname="")    # a non-UTF-8 byte in the text format's error line (found once, kept)
def test_every_format_parses_whatever_the_host_wrote(text, hostname):
    report = _report(text, hostname)
    for fmt in FORMATS:
        out = render(report, fmt, to_file=True)
        _consumed(fmt, out, text, report)
        error = render_error("cannot read /" + text, fmt, NOW)
        error.encode("utf-8")
        if fmt == "junit":
            _junit(error)
        elif fmt == "nagios":
            assert error.count("\n") == 1 and not CONTROL.search(error.rstrip("\n"))


ALL = "".join(NASTY)


@pytest.mark.skipif(not shutil.which("xmllint"), reason="xmllint (Debian's libxml2-utils) is not installed")
def test_xmllint_validates_junit_with_every_control_character(tmp_path):
    xsd = tmp_path / "junit-10.xsd"
    xsd.write_text(JUNIT_XSD)
    report = tmp_path / "report.xml"
    report.write_text(render(_report(ALL, "db1" + ALL), "junit"), encoding="utf-8")
    proc = subprocess.run(["xmllint", "--noout", "--schema", str(xsd), str(report)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # Raw, as before the fix, xmllint refuses it: the test can tell.
    report.write_text('<testsuites><testsuite name="a\x1b" tests="0"/></testsuites>')
    assert subprocess.run(["xmllint", "--noout", str(report)], capture_output=True).returncode != 0


@pytest.mark.skipif(not shutil.which("promtool"), reason="promtool (Debian's prometheus package) is not installed")
def test_promtool_reads_labels_with_every_control_character():
    out = render(_report(ALL, "db1" + ALL), "prometheus")
    proc = subprocess.run(["promtool", "check", "metrics"], input=out, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_check_writes_a_host_escape_sequence_escaped(cli, tmp_path):
    """The whole command on a root whose hostname file carries an ESC and a byte that is not UTF-8."""
    from conftest import REPO
    case = REPO / "tests" / "cases" / "sysctl" / "numa-balancing-on"
    if not case.exists():
        case = sorted(p.parent for p in (REPO / "tests" / "cases" / "sysctl").glob("*/policy.toml"))[0]
    root = tmp_path / "root"
    shutil.copytree(case / "root", root, symlinks=True)
    (root / "proc/sys/kernel").mkdir(parents=True, exist_ok=True)
    (root / "proc/sys/kernel/hostname").write_bytes(b"db\x1b[31m1\xff\n")
    (root / "etc").mkdir(exist_ok=True)
    (root / "etc/hostname").write_bytes(b"db\x1b[31m1\xff\n")
    for fmt in FORMATS:
        out = tmp_path / ("report." + fmt)
        status, line, err = cli("check", "--root", root, "--policy", case / "policy.toml", "--format", fmt,
                                "--out", out)
        assert status in (0, 1, 2), (fmt, err)
        data = out.read_bytes()
        assert b"\x1b" not in data or fmt == "json", fmt  # JSON writes it as \u001b, never raw
        data.decode("utf-8")
        if fmt == "junit":
            _junit(data.decode())
