"""CPU frequency governor and C-state limits (cpufreq, cpuidle, and the boot
arguments that cap C-states)."""
from numatune.family import Family
from numatune.families.cpu import knob

SURVEY = {"cpu": {"governor": "performance"}}


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.cpu import facts_text
    return facts_text.facts_lines(facts)


def _as_policy(facts):
    # Imported for `facts --format policy` only.
    from numatune.families.cpu import as_policy
    return as_policy.as_policy(facts)


def _reread(root, data, planned, ops):
    # Imported after apply's writes only (verify): a plan never rereads.
    from numatune.families.cpu import reread
    return reread.reread(root, data, planned, ops)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.cpu import recommend
    return recommend.recommend(facts)


FAMILY = Family(name=knob.NAME, areas=("cpu",), policy=knob.POLICY, read=knob.read, diff=knob.diff,
                editors=knob.EDITORS, facts_lines=_facts_lines, recommend=_recommend, survey=SURVEY,
                as_policy=_as_policy, reread=_reread)
