"""check's formats as their consumers read them, on a plan where results
share an id: one rule, one series, one testcase.

The boot family now names each entry's problem by its argument
(`cmdline.entry:PATH:ARG`) and leaves out what the plan's own change fixes,
so no shipped case yields a shared id any more; the guarantee still holds for
any family that does. The plan of the real cmdline-grub2-legacy case is
given two findings of one id (one entry lacking transparent_hugepage=never
and carrying numa=off, as the boot family once said it) and a compliant twin.
Every real case under tests/cases also gives unique series.

- Prometheus: parsed by prometheus_client; every series unique (node_exporter
  drops duplicates and counts a gathering error), names and types follow
  promtool's `check metrics` rules (a `_total` only on counters, base units).
- JUnit: validated by xmlschema against a junit-10 style schema (the Jenkins
  xunit shape: `skipped` is a <testsuite> attribute, not a <testsuites> one),
  and read by junitparser.
"""
import re
import shutil

import pytest

from conftest import REPO

CASE = REPO / "tests" / "cases" / "boot" / "cmdline-grub2-legacy"
ENTRY = "cmdline.entry:/boot/grub2/grub.cfg#0"
CASES = sorted(p.parent for p in (REPO / "tests" / "cases").glob("*/*/policy.toml"))

# junit-10 style: the shape Jenkins' xunit plugin validates (attribute names and where they may appear).
JUNIT_XSD = """<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:complexType name="text"><xs:simpleContent><xs:extension base="xs:string">
    <xs:attribute name="message" type="xs:string"/><xs:attribute name="type" type="xs:string"/>
  </xs:extension></xs:simpleContent></xs:complexType>
  <xs:element name="testsuites"><xs:complexType><xs:sequence>
    <xs:element name="testsuite" minOccurs="0" maxOccurs="unbounded"><xs:complexType><xs:sequence>
      <xs:element name="properties" minOccurs="0"><xs:complexType><xs:sequence>
        <xs:element name="property" minOccurs="0" maxOccurs="unbounded"><xs:complexType>
          <xs:attribute name="name" type="xs:string" use="required"/>
          <xs:attribute name="value" type="xs:string" use="required"/>
        </xs:complexType></xs:element>
      </xs:sequence></xs:complexType></xs:element>
      <xs:element name="testcase" minOccurs="0" maxOccurs="unbounded"><xs:complexType><xs:sequence>
        <xs:element name="skipped" type="text" minOccurs="0"/>
        <xs:element name="error" type="text" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="failure" type="text" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="system-out" type="xs:string" minOccurs="0" maxOccurs="unbounded"/>
        <xs:element name="system-err" type="xs:string" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
        <xs:attribute name="name" type="xs:string" use="required"/>
        <xs:attribute name="classname" type="xs:string"/>
        <xs:attribute name="time" type="xs:decimal"/>
        <xs:attribute name="assertions" type="xs:string"/><xs:attribute name="status" type="xs:string"/>
      </xs:complexType></xs:element>
      <xs:element name="system-out" type="xs:string" minOccurs="0"/>
      <xs:element name="system-err" type="xs:string" minOccurs="0"/>
    </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
      <xs:attribute name="tests" type="xs:int" use="required"/>
      <xs:attribute name="failures" type="xs:int"/><xs:attribute name="errors" type="xs:int"/>
      <xs:attribute name="skipped" type="xs:int"/><xs:attribute name="disabled" type="xs:int"/>
      <xs:attribute name="time" type="xs:decimal"/><xs:attribute name="timestamp" type="xs:string"/>
      <xs:attribute name="hostname" type="xs:string"/><xs:attribute name="id" type="xs:string"/>
      <xs:attribute name="package" type="xs:string"/>
    </xs:complexType></xs:element>
  </xs:sequence>
    <xs:attribute name="name" type="xs:string"/><xs:attribute name="time" type="xs:decimal"/>
    <xs:attribute name="tests" type="xs:int"/><xs:attribute name="failures" type="xs:int"/>
    <xs:attribute name="disabled" type="xs:int"/><xs:attribute name="errors" type="xs:int"/>
  </xs:complexType></xs:element>
</xs:schema>
"""


@pytest.fixture
def root(tmp_path, monkeypatch):
    """The case's root; its plan gains results sharing the id ENTRY (two problems and a compliant twin)."""
    from numatune import engine
    from numatune.model import Compliant, Finding
    dest = tmp_path / "root"
    shutil.copytree(CASE / "root", dest, symlinks=True)
    real = engine.make_plan

    def make_plan(*args, **kwargs):
        plan, facts = real(*args, **kwargs)
        assert ENTRY not in [f.id for f in plan.findings], "the real plan gained the id: build the duplicates anew"
        plan.compliant.append(Compliant(rule=ENTRY, message="boot entry /boot/grub2/grub.cfg#0: root= as set",
                                        area="kernel", family="boot"))
        for severity, problem in (("warning", "lacks transparent_hugepage=never"), ("critical", "carries numa=off")):
            plan.findings.append(Finding(id=ENTRY, severity=severity, area="kernel", family="boot",
                                         target="/boot/grub2/grub.cfg", rule="kernel.cmdline",
                                         message="boot entry /boot/grub2/grub.cfg#0: " + problem))
        return plan, facts
    monkeypatch.setattr(engine, "make_plan", make_plan)
    return dest


def _check(cli, root, fmt, *extra):
    return cli("check", "--root", root, "--policy", CASE / "policy.toml", "--format", fmt, *extra)


def test_one_result_per_rule_even_with_two_problems_in_one_entry(cli, root):
    import json
    status, out, err = _check(cli, root, "json")
    results = json.loads(out)["results"]
    ids = [r["id"] for r in results]
    assert len(ids) == len(set(ids))
    entry = next(r for r in results if r["id"] == ENTRY)
    # Both problems stay visible in the one result, at the worse severity; the compliant twin adds nothing.
    assert "lacks transparent_hugepage=never" in entry["message"] and "carries numa=off" in entry["message"]
    assert entry["severity"] == "critical" and "root= as set" not in entry["message"]


def test_prometheus_series_are_unique_and_named_by_the_rules(cli, root, tmp_path):
    from prometheus_client.parser import text_string_to_metric_families
    prom = tmp_path / "numatune.prom"
    status, out, err = _check(cli, root, "prometheus", "--out", prom)
    assert status == 2, err
    families = list(text_string_to_metric_families(prom.read_text()))
    series = [(s.name, tuple(sorted(s.labels.items()))) for f in families for s in f.samples]
    assert len(series) == len(set(series)), [s for s in series if series.count(s) > 1]
    assert any(dict(labels).get("rule") == ENTRY for _, labels in series)
    for family in families:
        assert re.match(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$", family.name)
        assert family.documentation, family.name
        # promtool: "non-counter metrics should not have _total suffix"; counters need it.
        assert (family.type == "counter") == family.name.endswith("_total"), (family.name, family.type)
        for sample in family.samples:
            for label in sample.labels:
                assert re.match(r"^[a-zA-Z_][a-zA-Z0-9_]*$", label) and not label.startswith("__")
    names = {f.name for f in families}
    assert {"numatune_drift_rules", "numatune_waived_rules", "numatune_last_check_timestamp_seconds"} <= names
    # stdout without --out is the same exposition.
    status, out, err = _check(cli, root, "prometheus")
    assert [f.name for f in text_string_to_metric_families(out)] == [f.name for f in families]


def test_junit_validates_against_a_junit10_schema(cli, root):
    xmlschema = pytest.importorskip("xmlschema")
    schema = xmlschema.XMLSchema(JUNIT_XSD)
    status, out, err = _check(cli, root, "junit")
    assert status == 2
    schema.validate(out)
    names = re.findall(r'<testcase [^>]*name="([^"]+)"', out)
    assert len(names) == len(set(names)) and ENTRY in names

    from numatune.report import junit
    schema.validate(junit.render_error("no such root"))


def test_every_real_case_gives_unique_series(cli, tmp_path):
    """No monkeypatching: what each case's real plan gives node_exporter has no duplicate series."""
    from prometheus_client.parser import text_string_to_metric_families
    drifted = 0
    for case in CASES:
        status, out, err = cli("check", "--root", case / "root", "--policy", case / "policy.toml",
                               "--format", "prometheus")
        assert status in (0, 1, 2), (case, status, err)
        series = [(s.name, tuple(sorted(s.labels.items())))
                  for f in text_string_to_metric_families(out) for s in f.samples]
        assert len(series) == len(set(series)), (case, [s for s in series if series.count(s) > 1])
        drifted += status > 0
    assert drifted, "the cases must give some drift to name"


def test_the_schema_rejects_skipped_on_testsuites():
    """The schema is strict enough to catch what the issue saw."""
    xmlschema = pytest.importorskip("xmlschema")
    bad = ('<testsuites tests="1" skipped="0"><testsuite name="s" tests="1">'
           '<testcase name="a"/></testsuite></testsuites>')
    assert not xmlschema.XMLSchema(JUNIT_XSD).is_valid(bad)
