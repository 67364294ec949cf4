"""The severity rules and waiver matching of `check`, on plans built in the
test (pure: no host), and properties that hold for any plan."""
import datetime

from hypothesis import given, settings, strategies as st

from numatune.model import Change, Compliant, Finding, Plan
from numatune.report import compliance, render

NOW = datetime.datetime(2026, 6, 1, 12, tzinfo=datetime.timezone.utc)


def _change(id, rule, scope="live", current="1", desired="0"):
    return Change(id=id, area="kernel", target=id.partition(":")[2], current=current, desired=desired,
                  scope=scope, action="write", rule=rule)


def _report(changes=(), findings=(), compliant=(), waivers=(), cmdline=None):
    plan = Plan(host={"hostname": "db1"}, changes=list(changes), findings=list(findings),
                compliant=list(compliant))
    facts = {"host": {"cmdline": cmdline}}
    return compliance.build(plan, {"waiver": list(waivers)}, facts, now=NOW, policy_name="p")


def _sev(report):
    return {r.id: (r.state, r.severity) for r in report.results}


def test_persistent_drift_alone_is_a_warning_with_live_drift_critical():
    live = _change("sysctl.live:vm.swappiness", "sysctl.vm.swappiness")
    persist = _change("sysctl.persist:vm.swappiness", "sysctl.vm.swappiness", scope="persistent")
    assert _sev(_report([persist]))[persist.id] == ("drift", "warning")
    assert _sev(_report([live, persist]))[persist.id] == ("drift", "critical")


def test_boot_change_depends_on_what_the_running_kernel_booted():
    add = _change("cmdline.add:transparent_hugepage=never", "kernel.cmdline.present", scope="boot")
    remove = _change("cmdline.remove:numa=off", "kernel.cmdline.absent", scope="boot")
    # Unknown or wrong running kernel: the host is off now.
    assert _sev(_report([add, remove]))[add.id] == ("drift", "critical")
    assert _sev(_report([add, remove]))[remove.id] == ("drift", "critical")
    # The family says the running kernel already has it: only the next boot would be wrong.
    add.running_ok = remove.running_ok = True
    ok = _report([add, remove])
    assert _sev(ok)[add.id] == ("drift", "warning") and _sev(ok)[remove.id] == ("drift", "warning")


def test_restart_pending_and_what_it_clears_are_warnings():
    pending = Finding(id="oracle.restart-pending:sga_target", severity="info", rule="oracle.sga_target", pending=True,
                      message="spfile has it, the instance does not: restart")
    cleared = Finding(id="oracle.sga-too-big", severity="critical", rule="oracle.sga_target", message="x")
    other = Finding(id="hugepages.too-big:0", severity="critical", rule="hugepages.count", message="y")
    report = _report(findings=[pending, cleared, other])
    assert _sev(report) == {pending.id: ("pending", "warning"), cleared.id: ("pending", "warning"),
                            other.id: ("drift", "critical")}
    assert report.status == 2


def test_waivers_match_id_or_policy_key_by_glob_and_expire():
    live = _change("sysctl.live:kernel.numa_balancing", "sysctl.kernel.numa_balancing")
    other = _change("sysctl.live:vm.zone_reclaim_mode", "sysctl.vm.zone_reclaim_mode")
    waiver = {"rule": "sysctl.kernel.*", "reason": "case 1", "expires": "2026-06-01"}  # last valid day
    report = _report([live, other], waivers=[waiver])
    assert _sev(report)[live.id] == ("waived", "info") and _sev(report)[other.id] == ("drift", "critical")
    expired = dict(waiver, expires="2026-05-31")
    renewed = dict(waiver, expires="2027-01-01", reason="case 2")
    report = _report([live], waivers=[expired, renewed])  # an expired waiver and its renewal
    r = next(r for r in report.results if r.id == live.id)
    assert (r.state, r.waiver["reason"]) == ("waived", "case 2")
    report = _report([live], waivers=[expired])
    r = next(r for r in report.results if r.id == live.id)
    assert (r.state, r.severity, r.waiver["expired"]) == ("drift", "critical", True)
    assert "waiver expired 2026-05-31" in r.message


def test_compliant_rules_are_never_waived_and_unused_waivers_are_noted():
    report = _report(compliant=[Compliant("sysctl.live:kernel.numa_balancing", "ok", "kernel")],
                     waivers=[{"rule": "sysctl.*", "reason": "r", "expires": "2030-01-01"}])
    states = _sev(report)
    assert states["sysctl.live:kernel.numa_balancing"] == ("compliant", "ok")
    assert states["waiver:sysctl.*"] == ("info", "info") and report.status == 0


IDS = st.sampled_from(["sysctl.live:a.b", "sysctl.persist:a.b", "cmdline.add:x=1", "thp.live", "hp.too-big:0",
                       "cmdline.reboot-pending:x=1", "oracle.restart-pending:sga"])
RULES = st.sampled_from(["sysctl.a.b", "kernel.cmdline.present", "hugepages.count", "oracle.sga"])
CHANGES = st.builds(_change, IDS, RULES, scope=st.sampled_from(["live", "persistent", "boot"]))
FINDINGS = st.builds(Finding, id=IDS, severity=st.sampled_from(["info", "warning", "critical"]),
                     message=st.text(max_size=20), rule=RULES)


@settings(max_examples=150, deadline=None)
@given(st.lists(CHANGES, max_size=6), st.lists(FINDINGS, max_size=6), st.booleans())
def test_status_is_the_worst_unwaived_severity_and_a_blanket_waiver_clears_it(changes, findings, waive_all):
    waivers = [{"rule": "*", "reason": "freeze", "expires": "2030-01-01"}] if waive_all else []
    report = _report(changes, findings, waivers=waivers)
    worst = max([compliance.RANK[r.severity] for r in report.results], default=0)
    assert report.status == worst
    if changes:
        assert report.status >= 1 or waive_all
    if waive_all:
        assert report.status == 0 and not report.drift
        assert report.counts["waived"] == sum(1 for r in report.results if r.waiver and r.id[:7] != "waiver:")
    # Every format renders whatever the plan holds.
    for fmt in ("text", "json", "junit", "prometheus", "nagios"):
        assert render(report, fmt).endswith("\n")
    # One result per rule id: plan items sharing an id are one rule (one series, one testcase).
    ids = [r.id for r in report.results]
    assert len(ids) == len(set(ids)) and {c.id for c in changes} | {f.id for f in findings} <= set(ids)


def test_a_prometheus_rule_keeps_its_series_when_it_flips():
    """The per-rule count is one series whichever state the rule is in; the per-target series is written
    only while it drifts, and has no empty label (the id has no subject: no target)."""
    from prometheus_client.parser import text_string_to_metric_families

    def samples(report, name):
        text = render(report, "prometheus")
        return {tuple(sorted(s.labels.items())): s.value for f in text_string_to_metric_families(text)
                for s in f.samples if s.name == name}
    drift = _report([Change(id="hugepages.live", area="memory", target="hugepages-2048kB", current="0",
                            desired="512", scope="live", action="write", rule="hugepages.count")])
    holds = _report(compliant=[Compliant("hugepages.live", "512 2M pages live", "memory")])
    key = (("area", "memory"), ("check", "hugepages.live"), ("state", "drift"))
    assert samples(drift, "numatune_rule_targets")[key] == 1 and samples(holds, "numatune_rule_targets")[key] == 0
    assert samples(drift, "numatune_rule_targets").keys() == samples(holds, "numatune_rule_targets").keys()
    assert samples(drift, "numatune_rule_compliant") == {(("area", "memory"), ("rule", "hugepages.live")): 0}
    assert samples(holds, "numatune_rule_compliant") == {}
