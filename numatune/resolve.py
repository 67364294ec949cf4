"""The resolve step, between facts and diff: values derived from facts
(HugePages count = "auto" from the SGAs) computed once, each family's in
``facts["resolved"][name]``, in the order the families' ``resolve_after``
asks for."""
from numatune.families.registry import for_policy, resolve_order


def resolve(data, facts, families=None):
    """``families``: those whose facts were read (default: the ones the policy selects)."""
    facts["resolved"] = {}
    for family in resolve_order(for_policy(data) if families is None else families):
        facts["resolved"][family.name] = family.resolve(data, facts)
    return facts
