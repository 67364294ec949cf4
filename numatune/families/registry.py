"""The registry of knob families: adding one is a folder under here and one
line in ``FAMILIES``. Order is plan order within an area."""
from numatune.family import problems
from numatune.families.boot import FAMILY as boot
from numatune.families.cpu import FAMILY as cpu
from numatune.families.cpuset import FAMILY as cpuset
from numatune.families.hugepages import FAMILY as hugepages
from numatune.families.network import FAMILY as network
from numatune.families.oracle import FAMILY as oracle
from numatune.families.storage import FAMILY as storage
from numatune.families.sysctl import FAMILY as sysctl
from numatune.families.tuned import FAMILY as tuned

FAMILIES = (sysctl, boot, hugepages, cpu, cpuset, tuned, network, storage, oracle)
BY_NAME = {f.name: f for f in FAMILIES}
EDITORS = {name: fn for f in FAMILIES for name, fn in f.editors.items()}
WRITE_KINDS = {kind: module for f in FAMILIES for kind, module in f.write_kinds.items()}
assert not problems(FAMILIES), problems(FAMILIES)


def selectors(families=FAMILIES):
    """What `--only`/`--skip` take: every area a family's rules carry (in plan
    order), then each family's name (selects all of that family's rules)."""
    from numatune.model import AREAS
    carried = {a for f in families for a in f.areas}
    out = [a for a in AREAS if a in carried]
    return tuple(out + [f.name for f in families if f.name not in out])


def selected(item, family_name, only=None, skip=None):
    """Whether ``--only``/``--skip`` keep a change, finding or compliant rule."""
    names = (item.area, family_name)
    if only and not any(n in only for n in names):
        return False
    return not (skip and any(n in skip for n in names))


def resolve_order(families=FAMILIES):
    """Families with a resolve step, each after those it reads from."""
    done, out = set(), []

    def visit(f, stack=()):
        if f.name in done:
            return
        if f.name in stack:
            raise ValueError("resolve_after cycle through %s" % " -> ".join(stack + (f.name,)))
        for dep in f.resolve_after:
            visit(BY_NAME[dep], stack + (f.name,))
        done.add(f.name)
        out.append(f)
    for f in families:
        visit(f)
    return [f for f in out if f.resolve is not None]
