"""`numatune facts --format policy`: the host as it is, as a policy that
`plan` on the same host reports as no changes (as `nmstatectl show` prints
the state in the schema one applies). Each family that can say its settings
as policy tables does (``Family.as_policy``); the core reads the host with
every family's survey plus what they ask to read more, then plans the result
on the same facts and leaves out any key the plan would still change or
doubt (a value the next boot would not keep): what is printed is what
`plan` confirms, never a guess."""
from numatune import engine
from numatune.errors import HostError
from numatune import plan as plan_mod
from numatune.families.registry import FAMILIES
from numatune.policy.loader import merge


def _tables(facts):
    tables, more = {}, {}
    for family in FAMILIES:
        if family.as_policy is not None:
            said, wants = family.as_policy(facts)
            tables = merge(tables, said)
            more = merge(more, wants or {})
    return tables, more


def _names(tables):
    return [(table, key) for table, content in tables.items() for key in content]


def host_policy(root):
    """(policy data, facts): the [policy] header and the families' tables."""
    from numatune.recommend.build import survey
    base = survey()
    facts = engine.gather(root, base, every=True)
    tables, more = _tables(facts)
    if more:
        facts = engine.gather(root, merge(base, more), every=True)
        tables, _ = _tables(facts)
    host = facts["host"].get("hostname") or root.path
    while True:
        data = dict(tables, policy={"name": "host-as-is", "description": "the settings of %s as they are" % host})
        plan = plan_mod.build(data, engine.gather(root, data))
        doubted = {c.rule for c in plan.changes} | {f.rule for f in plan.findings if f.severity != "info"}
        drop = [(t, k) for t, k in _names(tables) if "%s.%s" % (t, k) in doubted]
        if not drop:
            break
        for table, key in drop:
            del tables[table][key]
        tables = {t: c for t, c in tables.items() if c}
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
