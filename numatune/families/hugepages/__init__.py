"""HugePages pools per NUMA node, and count = "auto" sized from the Oracle
SGAs (the resolve step)."""
from numatune.family import Family
from numatune.families.hugepages import knob

FAMILY = Family(
    name=knob.NAME, areas=("memory",), policy=knob.POLICY, read=knob.read, diff=knob.diff,
    check_policy=knob.check_policy, resolve=knob.resolve, after_apply=knob.after_apply,
    facts_lines=knob.facts_lines,
)
