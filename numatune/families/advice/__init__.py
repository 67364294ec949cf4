"""The papers' host-level advice, read from the host alone on an Oracle host
(an /etc/oratab) with several NUMA nodes, whatever the policy: NICs at MTU
1500, one listener for every node, device interrupts nobody places. Findings
only (info or warning, each with the paper's figure): what to do about them
needs the site (switch ports, addresses), so nothing is planned here."""
from numatune.family import Family
from numatune.families.advice import knob


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.advice import facts_text
    return facts_text.facts_lines(facts)


FAMILY = Family(name=knob.NAME, areas=("network", "cpu", "oracle"), policy={}, read=knob.read, diff=knob.diff,
                facts_lines=_facts_lines)
