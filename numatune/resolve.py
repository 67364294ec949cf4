"""The resolve step, between facts and diff: values derived from facts
(HugePages count = "auto" from the SGAs) computed once, each family's in
``facts["resolved"][name]``, in the order the families' ``resolve_after``
asks for."""
from numatune.families.registry import resolve_order


def resolve(data, facts):
    facts["resolved"] = {}
    for family in resolve_order():
        facts["resolved"][family.name] = family.resolve(data, facts)
    return facts
