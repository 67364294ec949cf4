"""`check --format prometheus` at fleet scale (issue 27): one series per policy rule, area and state,
per-target series only for what does not comply, capped, and never an empty label.

The giant bench host (bench/make_host.py: 4,096 SCSI paths, 64 NICs x 64 queues) gave 34,263 results
and 33,858 series before; its shape is rebuilt here as results (making the host takes minutes), and the
file must stay under 2,000 series. Measured on the real bench host: 772 series, 70 kB."""
import datetime
import shutil
import subprocess

import pytest

from conftest import REPO
from numatune.model import Change, Compliant, Finding, Plan
from numatune.report import compliance, render
from numatune.report.prometheus import TARGET_SERIES_LIMIT

NOW = datetime.datetime(2026, 6, 1, 12, tzinfo=datetime.timezone.utc)
CASES = sorted(p.parent for p in (REPO / "tests" / "cases").glob("*/*/policy.toml"))


def _parse(text):
    from prometheus_client.parser import text_string_to_metric_families
    return list(text_string_to_metric_families(text))


def _giant_plan():
    """The bench host's results by kind: 4,096 paths x 5 block settings, 3,620 IRQs, 540 compliant ones."""
    changes, compliant = [], []
    for i in range(1024 * 4 + 1024):
        dev = "sd%d" % i if i < 4096 else "dm-%d" % (i - 4096)
        for attr in ("nr_requests", "max_sectors_kb", "nomerges", "read_ahead_kb", "rotational"):
            changes.append(Change(id="block.live:%s/%s" % (dev, attr), area="storage", target=dev,
                                  current="64", desired="512", scope="persistent", action="write",
                                  rule="block[1].%s" % attr, running_ok=True))
    for i in range(3620):
        changes.append(Change(id="net.irq:%d" % (1000 + i), area="network", target="irq %d" % (1000 + i),
                              current="0-479", desired="0-59", scope="live", action="write", rule="net[0]"))
    compliant += [Compliant("net.irq:%d" % (9000 + i), "irq affinity as set", "network") for i in range(540)]
    findings = [Finding(id="oracle.pool-too-small", severity="critical", area="oracle", family="oracle",
                        rule="oracle.hugepages", message="the pool cannot hold the SGAs")]
    return Plan(host={"hostname": "sdx-db01.example.com"}, changes=changes, findings=findings, compliant=compliant)


def test_a_giant_host_is_under_two_thousand_series_with_the_cap_said():
    report = compliance.build(_giant_plan(), {}, now=NOW, policy_name="bench")
    families = {f.name: f for f in _parse(render(report, "prometheus"))}
    series = sum(len(f.samples) for f in families.values())
    assert len(report.results) > 29000 and series < 2000, series
    value = {f.name: f.samples[0].value for f in families.values() if len(f.samples) == 1}
    assert value["numatune_target_series_limit"] == TARGET_SERIES_LIMIT
    off = len(report.results) - report.counts["compliant"]
    assert value["numatune_target_series_omitted"] == off - TARGET_SERIES_LIMIT
    assert len(families["numatune_rule_compliant"].samples) == TARGET_SERIES_LIMIT
    # Worst first: the critical ones (IRQs live, the Oracle pool) have their series before the warnings.
    kept = {s.labels["rule"] for s in families["numatune_rule_compliant"].samples}
    assert "oracle.pool-too-small" in kept and not any(r.startswith("block.live:") for r in kept)
    # Every target is counted, per rule, area and state.
    counts = {(s.labels["check"], s.labels["area"], s.labels["state"]): s.value
              for s in families["numatune_rule_targets"].samples}
    assert counts[("block.live", "storage", "drift")] == 5120 * 5
    assert counts[("net.irq", "network", "drift")] == 3620 and counts[("net.irq", "network", "compliant")] == 540
    assert counts[("net.irq", "network", "waived")] == 0  # zeros are written: a state is a value, never a gap
    worst = {s.labels["check"]: s.value for s in families["numatune_rule_worst_severity"].samples}
    assert worst == {"block.live": 1, "net.irq": 2, "oracle.pool-too-small": 2}


def test_no_empty_label_in_any_real_case_nor_offline(cli, tmp_path):
    """An id without a subject has no target label; an offline root without a hostname has no hostname."""
    seen_subjectless = False
    for case in CASES:
        status, out, err = cli("check", "--root", case / "root", "--policy", case / "policy.toml",
                               "--format", "prometheus")
        assert status in (0, 1, 2), (case, err)
        for family in _parse(out):
            for s in family.samples:
                assert all(v != "" for v in s.labels.values()), (case, s)
                seen_subjectless |= family.name == "numatune_rule_compliant" and "target" not in s.labels
    report = compliance.build(Plan(host={"hostname": ""}, changes=[Change(
        id="hugepages.live", area="memory", target="x", current="0", desired="1", scope="live", action="write",
        rule="hugepages.count")]), {}, now=NOW, policy_name="")
    info = {f.name: f for f in _parse(render(report, "prometheus"))}["numatune_info"].samples[0]
    assert set(info.labels) == {"version"}
    rule = {f.name: f for f in _parse(render(report, "prometheus"))}["numatune_rule_compliant"].samples[0]
    assert rule.labels == {"rule": "hugepages.live", "area": "memory"}


@pytest.mark.skipif(not shutil.which("promtool"), reason="promtool (Debian's prometheus package) is not installed")
def test_promtool_accepts_the_giant_file():
    report = compliance.build(_giant_plan(), {}, now=NOW, policy_name="bench")
    proc = subprocess.run(["promtool", "check", "metrics"], input=render(report, "prometheus"),
                          capture_output=True, text=True)
    # promtool exits 3 on lint findings (naming, help), 1 on a parse error.
    assert proc.returncode == 0, proc.stdout + proc.stderr
