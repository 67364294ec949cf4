"""HugePages pools per NUMA node, and count = "auto" sized from the Oracle
SGAs (the resolve step)."""
from numatune.family import Family
from numatune.families.hugepages import knob

# count = "auto": the resolve step sizes the pool from the instances, as a policy would.
SURVEY = {"hugepages": {"size": "2M", "count": "auto"}}


def _as_policy(facts):
    # Imported for `facts --format policy` only.
    from numatune.families.hugepages import as_policy
    return as_policy.as_policy(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.hugepages import recommend
    return recommend.recommend(facts)


FAMILY = Family(
    name=knob.NAME, areas=("memory",), policy=knob.POLICY, read=knob.read, diff=knob.diff,
    check_policy=knob.check_policy, resolve=knob.resolve, resolve_after=("boot",), after_apply=knob.after_apply,
    facts_lines=knob.facts_lines,
    recommend=_recommend, survey=SURVEY, as_policy=_as_policy,
)
