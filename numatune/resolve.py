"""The resolve step, between facts and diff: values derived from facts
(HugePages count = "auto" from the SGAs) computed once, each family's in
``facts["resolved"][name]``, in the order the families' ``resolve_after``
asks for."""
from numatune.families.registry import for_facts, resolve_order


def resolve(data, facts):
    """For the families whose facts were read (``facts["families"]``)."""
    facts["resolved"] = {}
    for family in resolve_order(for_facts(data, facts)):
        facts["resolved"][family.name] = family.resolve(data, facts)
    return facts
