"""The plan: a pure function of the policy and the facts."""
from numatune.families.registry import for_facts, keeps
from numatune.model import AREAS, Change, Compliant, Finding, Plan


def host_summary(facts):
    host = facts["host"]
    topo = facts["topology"]
    return {
        "hostname": host["hostname"],
        "kernel": host["release"],
        "distro": host["distro"]["name"],
        "root": facts["root"],
        "sockets": topo["summary"]["sockets"],
        "nodes": topo["summary"]["nodes"],
        "cpus": topo["summary"]["cpus_online"],
    }


def build(data, facts, only=None, skip=None):
    plan = Plan(host=host_summary(facts), policy=data)
    matched = set()
    # A finding several families yield alike (what stops a shared boot path) is said once.
    said = set()
    # Only the families whose facts were read: the others yield nothing here.
    scoped = bool(only or skip)
    changes = plan.changes
    for family in for_facts(data, facts):
        name = family.name
        kept = False
        for item in family.diff(data, facts):
            item.family = name
            if scoped and not keeps(item, name, only, skip):
                continue
            kept = True
            matched.add(item.area)
            if isinstance(item, Change):
                changes.append(item)
            elif isinstance(item, Finding):
                if (item.id, item.message) in said:
                    continue
                said.add((item.id, item.message))
                plan.findings.append(item)
            elif isinstance(item, Compliant):
                plan.compliant.append(item)
            else:  # pragma: no cover - a family bug, not user input
                raise TypeError("%s.diff yielded %r" % (family.name, item))
        if kept:
            matched.add(name)
    # An --only that keeps nothing must not read as "all clear" (engine.make_plan refuses it).
    plan.unselected = [name for name in (only or ()) if name not in matched]
    order = {a: i for i, a in enumerate(AREAS)}
    # A stable sort keeps each family's own order (hugepages shrink before grow): the
    # changes of each area in turn, in plan order (30,000 keys to sort on a giant host).
    last, by_rank = len(order), {}
    for c in changes:
        rank = order.get(c.area, last)
        got = by_rank.get(rank)
        if got is None:
            by_rank[rank] = [c]
        else:
            got.append(c)
    if len(by_rank) > 1:
        changes[:] = [c for rank in sorted(by_rank) for c in by_rank[rank]]
    plan.findings.sort(key=lambda f: ({"critical": 0, "warning": 1, "info": 2}[f.severity], order.get(f.area, 99)))
    return plan


def select_scope(changes, live_only=False, persistent_only=False):
    if live_only:
        return [c for c in changes if c.scope == "live"]
    if persistent_only:
        return [c for c in changes if c.scope != "live"]
    return list(changes)
