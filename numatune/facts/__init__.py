"""Reading the host under a root. Each reader opens files only; the parsing
is pure and lives beside it."""
from numatune.facts import kernel, topology


def gather(root, data):
    """Everything the plan needs: host, topology, and each family's facts."""
    from numatune.families import FAMILIES
    facts = {"root": root.path, "host": kernel.read(root), "topology": topology.read(root)}
    for family in FAMILIES:
        facts[family.NAME] = family.read(root, data)
    return facts
