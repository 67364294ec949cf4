"""`numatune facts --format policy`: the host as it is, as a policy that
`plan` on the same host reports as no changes (as `nmstatectl show` prints
the state in the schema one applies). Each family that can say its settings
as policy tables does (``Family.as_policy``); the core reads the host with
every family's survey plus what they ask to read more, then plans the result
on the same facts and leaves out any key the plan would still change or
doubt (a value the next boot would not keep): what is printed is what
`plan` confirms, never a guess."""
import re

from numatune import engine
from numatune.errors import HostError
from numatune import plan as plan_mod
from numatune.families.registry import FAMILIES
from numatune.policy.loader import merge


def _tables(facts):
    """(tables, policy data to read more with, {family: the tables it said})."""
    tables, more, said_by = {}, {}, {}
    for family in FAMILIES:
        if family.as_policy is not None:
            said, wants = family.as_policy(facts)
            tables = merge(tables, said)
            more = merge(more, wants or {})
            said_by[family.name] = set(said)
    return tables, more, said_by


def _names(tables):
    """(table, key) of each key, (table, index) of each entry of an array of tables."""
    return [(table, key) for table, content in tables.items()
            for key in (range(len(content)) if isinstance(content, list) else content)]


def _label(name):
    table, key = name
    return "%s[%d]" % name if isinstance(key, int) else "%s.%s" % name


def _doubts(label, rules):
    # A rule names the key it comes from or a key inside it (kernel.cmdline.present);
    # an array's entries are named together ("net[0],net[2]").
    return any(r == label or r.startswith(label + ".") for r in rules)


def _drop(tables, names):
    for table in {t for t, _ in names}:
        # An array's entries from the last, so that the indices left stay right.
        for key in sorted({k for t, k in names if t == table}, reverse=True):
            del tables[table][key]


def _whole(tables):
    """The tables without what a key left out made wrong (a [hugepages]
    whose count was left out): the families' cross-field rules say which."""
    while True:
        tables = {t: c for t, c in tables.items() if c}
        whole, entries = set(), set()
        for family in FAMILIES:
            for err in family.check_policy(tables):
                m = re.match(r"^([A-Za-z_]\w*)(?:\[(\d+)\])?", err.key)
                if m and m.group(1) in tables:
                    if m.group(2):
                        entries.add((m.group(1), int(m.group(2))))
                    else:
                        whole.add(m.group(1))
        if not whole and not entries:
            return tables
        tables = {t: c for t, c in tables.items() if t not in whole}
        _drop(tables, {(t, i) for t, i in entries if t in tables})


def host_policy(root):
    """(policy data, facts): the [policy] header and the families' tables."""
    from numatune.recommend.build import survey
    base = survey()
    facts = engine.gather(root, base, every=True)
    tables, more, said_by = _tables(facts)
    if more:
        facts = engine.gather(root, merge(base, more), every=True)
        tables, _, said_by = _tables(facts)
    host = facts["host"].get("hostname") or root.path
    while True:
        data = dict(tables, policy={"name": "host-as-is", "description": "the settings of %s as they are" % host})
        plan = plan_mod.build(data, engine.gather(root, data))
        drop = []
        for item in list(plan.changes) + [f for f in plan.findings if f.severity != "info"]:
            named = [n for n in _names(tables) if _doubts(_label(n), (item.rule or "").split(","))]
            # Entries of an array named together (the NIC two [[net]] rules match): the
            # later one first, so that the earlier one is kept if it alone is met.
            drop += [n for n in named if not isinstance(n[1], int)] + [n for n in named if isinstance(n[1], int)][-1:]
        if not drop:
            # A change under another key's rule (a pool's count kept by a sysctl.d
            # file): the family whose keys asked for it says none of them.
            drop = [n for c in plan.changes for n in _names(tables) if n[0] in said_by.get(c.family, ())]
        if not drop:
            break
        _drop(tables, drop)
        tables = _whole(tables)
    if plan.changes:
        # A change no key of ours asked for: what the host is cannot be said as a policy here.
        raise HostError("cannot write this host as a policy: planned on it, the policy would still change %s"
                        % ", ".join(sorted({c.id for c in plan.changes})[:3]),
                        "nothing was written; report it with `numatune snapshot` of this host")
    return data, facts


def toml_text(data, host):
    """The policy as TOML, with a header saying what it is."""
    import tomlkit
    doc = tomlkit.document()
    doc.add(tomlkit.comment("Written by `numatune facts --format policy` for %s: its settings as they are." % host))
    doc.add(tomlkit.comment("`numatune plan --policy THIS_FILE` on that host reports no changes."))
    for table in ["policy"] + sorted(t for t in data if t != "policy"):
        doc.add(table, data[table])
    return tomlkit.dumps(doc)
