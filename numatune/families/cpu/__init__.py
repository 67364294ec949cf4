"""CPU frequency governor and C-state limits (cpufreq, cpuidle, and the boot
arguments that cap C-states)."""
from numatune.family import Family
from numatune.families.cpu import facts_text, knob

FAMILY = Family(name=knob.NAME, areas=("cpu",), policy=knob.POLICY, read=knob.read, diff=knob.diff,
                editors=knob.EDITORS, facts_lines=facts_text.facts_lines)
