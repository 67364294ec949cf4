"""From a plan to a compliance report: one result per rule, its severity,
and the overall status with Nagios's meaning (0 OK, 1 WARNING, 2 CRITICAL,
3 UNKNOWN).

A "rule" in a report is one check the plan makes, named by its id: a
change's ``Change.id``, a finding's ``Finding.id`` or a compliant rule's
``Compliant.rule`` (``sysctl.live:kernel.numa_balancing``). The same id
names the rule whether it drifts or not, so a monitoring series stays one
series. ``policy_key`` is the policy setting it comes from
(``sysctl.kernel.numa_balancing``, i.e. ``Change.rule`` / ``Finding.rule``).

Severity:

- drift in the running host (a live change) is critical;
- a persistent or boot change is critical when the running host is off too,
  and a warning when only the next boot would be wrong;
- a change already made that waits for a reboot or an instance restart
  (a finding its family marks ``pending``), and the
  findings of the same policy key that it will clear, are warnings;
- other findings keep the severity their family gave them (``numa=off`` on a
  multi-socket host, a HugePages pool that cannot hold the SGAs: critical);
  info findings are not drift;
- a rule under a valid waiver is info ("waived"); an expired waiver waives
  nothing, so the rule counts as the drift it is.
"""
from __future__ import annotations

import datetime
import fnmatch

from numatune.model import AREAS
from numatune.report.grouped import value
from numatune.policy.waiver import parse_date
from numatune.model.records import field, fields, record

STATUS_TEXT = ("OK", "WARNING", "CRITICAL", "UNKNOWN")
RANK = {"ok": 0, "info": 0, "warning": 1, "critical": 2}


@record
class Result:
    id: str
    area: str
    state: str            # compliant | drift | pending | waived | info
    severity: str         # ok | info | warning | critical
    message: str
    policy_key: str = ""
    target: str = ""
    current: Optional[str] = None
    desired: Optional[str] = None
    why: str = ""
    waiver: Optional[dict] = None
    # What restores the value at boot (a compliant rule about the next boot), else "".
    persisted_by: str = ""

    @property
    def subject(self):
        """What the rule is about: the part of its id after the first ':'."""
        return self.id.partition(":")[2]

    def to_json(self):
        # Shallow: asdict() deep-copies each of the 30,000 results of a giant host.
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["subject"] = self.subject
        if self.waiver is not None:
            out["waiver"] = dict(self.waiver)
        return out


@record
class Report:
    host: dict
    policy: str
    checked_at: datetime.datetime
    results: List[Result] = field(default_factory=list)
    plan: object = None
    thresholds: object = None  # check -w/-c (report.thresholds.Thresholds): the drift count decides

    @property
    def status(self):
        if self.thresholds is not None:
            return self.thresholds.status(len(self.drift))
        return max((RANK[r.severity] for r in self.results), default=0)

    @property
    def status_text(self):
        return STATUS_TEXT[self.status]

    def count(self, **where):
        return sum(1 for r in self.results if all(getattr(r, k) == v for k, v in where.items()))

    @property
    def counts(self):
        # One pass: seven count() passes over 30,000 results showed in the giant-host profile.
        severity, state = {"critical": 0, "warning": 0}, dict.fromkeys(("compliant", "drift", "pending", "waived",
                                                                          "info"), 0)
        for r in self.results:
            if r.severity in severity:
                severity[r.severity] += 1
            if r.state in state:
                state[r.state] += 1
        return dict(severity, **state)

    @property
    def drift(self):
        """Rules that need someone: everything not compliant, waived or info."""
        return [r for r in self.results if r.severity in ("warning", "critical")]


def classify(plan, facts=None):
    """Results without waivers applied, in plan order."""
    live_drift = {c.rule for c in plan.changes if c.scope == "live"}
    live_drift |= {f.rule for f in plan.findings if f.severity != "info" and not f.pending}
    pending_keys = {f.rule for f in plan.findings if f.pending}
    changed_keys = {c.rule for c in plan.changes}
    results = []
    for c in plan.changes:
        if c.scope == "live":
            severity, note = "critical", ""
        elif c.rule in live_drift or (c.scope == "boot" and not c.running_ok):
            severity, note = "critical", ""
        else:
            severity, note = "warning", " (the running host is right; the next boot would not be)"
        if c.drift_severity in ("info", "warning") and RANK[c.drift_severity] < RANK[severity]:
            severity = c.drift_severity  # the family says this drift costs less (a knob one node ignores: info)
        results.append(Result(
            id=c.id, area=c.area, state="drift", severity=severity, policy_key=c.rule, target=c.target,
            current=c.current, desired=c.desired, why=c.why,
            message="%s: %s -> %s%s" % (c.target, _shown(c.current), _shown(c.desired), note)))
    for f in plan.findings:
        if f.pending:
            state, severity = "pending", "warning"
        elif f.severity == "info":
            state, severity = "info", "info"
        elif f.rule and f.rule in pending_keys and f.rule not in changed_keys:
            # e.g. numa=off still booted, already gone from the bootloader: the reboot clears it.
            state, severity = "pending", "warning"
        else:
            state, severity = "drift", f.severity
        results.append(Result(id=f.id, area=f.area, state=state, severity=severity, policy_key=f.rule,
                              target=f.target, message=f.message, why=f.why))
    for ok in plan.compliant:
        results.append(Result(id=ok.rule, area=ok.area, state="compliant", severity="ok", message=ok.message,
                              persisted_by=ok.kept_by))
    return one_per_id(results)


def one_per_id(results):
    """A rule is one id: a monitoring series, a JUnit testcase. Results that share an id (two problems
    a family names with one id, a compliant rule that is also a finding) become one result: the worst of
    them, carrying every message. Compliant twins of a drift add nothing."""
    groups = {}
    for r in results:
        groups.setdefault(r.id, []).append(r)
    if len(groups) == len(results):
        return results
    out = []
    for r in results:
        group = groups.pop(r.id, None)
        if group is None:
            continue  # merged into the first of its id
        if len(group) > 1:
            worst = max(group, key=lambda g: (RANK[g.severity], g.state != "compliant"))
            messages = [worst.message] + [g.message for g in group
                                          if g is not worst and g.state != "compliant" and g.message != worst.message]
            worst.message = "; ".join(messages)
            r = worst
        out.append(r)
    return out


def _shown(v):
    return value(v)


def waiver_matches(pattern, result):
    """A waiver's ``rule`` matches a result's id or its policy key, exactly
    or as a shell glob (``sysctl.*``, ``cmdline.remove:*``)."""
    return any(name and fnmatch.fnmatchcase(name, pattern) for name in (result.id, result.policy_key))


def apply_waivers(results, waivers, today):
    """Mark drift under a valid waiver as waived; return notes on waivers
    that matched nothing (a typo, or a rule fixed since)."""
    used = set()
    for r in results:
        if r.severity not in ("warning", "critical"):
            continue
        for i, w in enumerate(waivers):
            if not waiver_matches(w["rule"], r):
                continue
            used.add(i)
            expires = parse_date(w["expires"])
            info = {"rule": w["rule"], "reason": w["reason"], "expires": expires.isoformat(),
                    "expired": expires < today}
            r.waiver = info
            if info["expired"]:
                r.message += " (waiver expired %s)" % info["expires"]
                continue  # a later, valid waiver may still cover it
            r.state, r.severity = "waived", "info"
            r.message += " (waived until %s: %s)" % (info["expires"], w["reason"])
            break
    notes = []
    for i, w in enumerate(waivers):
        if i in used:
            continue
        expires = parse_date(w["expires"])
        state = "expired" if expires < today else "unused"
        notes.append(Result(
            id="waiver:%s" % w["rule"], area="", state="info", severity="info",
            message="waiver for %r (%s, until %s) matches no drift: remove it%s"
                    % (w["rule"], w["reason"], expires.isoformat(), " (it has expired)" if state == "expired" else ""),
            waiver={"rule": w["rule"], "reason": w["reason"], "expires": expires.isoformat(),
                    "expired": expires < today}))
    return notes


def build(plan, policy_data, facts=None, now=None, policy_name=""):
    """The compliance report of ``plan`` under the policy's waivers."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    results = classify(plan, facts)
    results += apply_waivers(results, policy_data.get("waiver", []), now.astimezone().date())
    order = {a: i for i, a in enumerate(AREAS)}
    results.sort(key=lambda r: (-RANK[r.severity], r.severity != "info", order.get(r.area, len(order)), r.id))
    return Report(host=plan.host, policy=policy_name, checked_at=now, results=results, plan=plan)


__all__ = ["Report", "Result", "build", "classify", "one_per_id", "apply_waivers", "waiver_matches", "STATUS_TEXT"]
