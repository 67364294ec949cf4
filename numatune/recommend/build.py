"""The recommendation for a host: one read of every family (each family's ``survey`` says what its reader must
look at), then each family's ``recommend(facts)`` says what this host's shape
calls for; the core only orders, renders and checks the entries. It never names
a family: what a family knows about its knobs stays in its package."""
import os
import tempfile
from dataclasses import dataclass, field, replace
from typing import List

from numatune import engine
from numatune.families.registry import FAMILIES
from numatune.policy.loader import merge

BASE = "oracle-numa"


@dataclass
class Recommendation:
    extends: List[str]
    entries: list
    host: str = ""
    problems: List[str] = field(default_factory=list)

    @property
    def description(self):
        return "numatune recommend for %s: %s" % (self.host or "this host", ", ".join(self.extends))

    @property
    def header(self):
        lines = ["Written by `numatune recommend` for %s from its facts. Review it: every entry says what the"
                 % (self.host or "this host"),
                 "host has now, what the source says and what it measured (the papers are cited by file name).",
                 "Commented-out entries need a site decision: each asks its question; un-comment the lines",
                 "under it to answer yes. Plan it before applying: `numatune plan --policy THIS_FILE`."]
        lines += ["PROBLEM: " + p for p in self.problems]
        return lines

    def text(self):
        from numatune.recommend.document import render
        return render(self)

    def policy_data(self):
        import tomlkit
        return tomlkit.parse(self.text()).unwrap()


def survey():
    """The one policy every family's reader is given: each family's survey merged."""
    data = {}
    for family in FAMILIES:
        data = merge(data, family.survey)
    return data


def _extends(entries):
    # A family may ask for a shipped policy (HugePages sized from the instances); the base is always in.
    named = [e.extends for e in entries if e.extends]
    out = []
    for name in named or [BASE]:
        if name not in out:
            out.append(name)
    return out


def build(root):
    """The Recommendation for the host under ``root``; its policy's plan is checked."""
    facts = engine.gather(root, survey(), every=True)
    entries = []
    for family in FAMILIES:
        if family.recommend is not None:
            entries.extend(family.recommend(facts))
    host = facts["host"].get("hostname", "")
    rec = Recommendation(extends=_extends(entries), entries=entries, host=host)
    empty = [] if entries else _nothing_read(root, facts)
    refused = refused_changes(root, rec)
    if refused:
        # What the plan would refuse is written commented out, the finding as its question.
        entries = [_withdrawn(e, refused) for e in entries]
        entries = [e for e in entries if e is not None]
        rec = Recommendation(extends=_extends(entries), entries=entries, host=host)
        rec.problems = ["%s (refuses %s)" % (message, change) for change, message in sorted(
            refused_changes(root, rec).items())]
    rec.problems += empty
    return rec


def _nothing_read(root, facts):
    """A root where no family found anything to say, with no /proc, /sys or /etc, is not a host's: the policy would be the base alone, for nothing numatune saw. Said in the policy, never
    passed off as a recommendation."""
    topo = facts.get("topology") or {}
    if topo.get("cpus") or topo.get("nodes") or (facts.get("host") or {}).get("cmdline") \
            or any(root.isdir(d) for d in ("/proc", "/sys", "/etc")):
        return []
    return ["nothing was read under %s: no /proc, /sys or /etc there (give --root a host's "
            "root or an extracted snapshot); this is the base policy alone, for no host" % root.path]


def _withdrawn(entry, refused):
    hit = [message for change, message in refused.items() if any(change.startswith(p) for p in entry.plans)]
    if not hit:
        return entry
    if entry.extends:
        return None
    return replace(entry, question="numatune's plan refuses this on this host now: %s. Fix that first." % hit[0])


def refused_changes(root, rec):
    """{change id: finding message} the recommended policy's plan refuses: a
    pool below an instance's need, a parameter its release lacks, an instance
    that would not start. Empty when the plan is safe to apply."""
    from numatune.model import refusals
    from numatune.policy import stack
    with tempfile.TemporaryDirectory(prefix="numatune-recommend-") as tmp:
        path = os.path.join(tmp, "policy.toml")
        with open(path, "w") as f:
            f.write(rec.text())
        policy = stack.load([path], root)
        plan, _ = engine.make_plan(root, policy, strict=False)
    return {change: finding.message for finding, ids in refusals(plan.findings, plan.changes) for change in ids}
