"""What each instance's parameters should be after the plan: the policy's
values rendered, plus the targets an AMM switch-off needs. Pure."""
from numatune.families.oracle import sizing, values

MB = 1 << 20


def policy_instances(data):
    return (data.get("oracle") or {}).get("instance", [])


def spec_of(data, inst):
    """The [[oracle.instance]] entry for an instance; {} for one found in
    /etc/oratab that the policy does not name."""
    index = inst.get("policy_index")
    return {} if index is None else policy_instances(data)[index]


def _is_database(sid):
    # +ASM and -MGMTDB (Grid Infrastructure) are no databases of the admin's.
    return not sid.startswith(("+", "-"))


def choose(specs, tab):
    """[(sid, oratab entry or None, spec, policy index or None)]: each SID
    once. A SID named by its own entry takes that entry, wherever a
    ``sid = "*"`` stands; "*" covers the other oratab databases; databases
    in oratab the policy does not name come last with no spec (their SGAs
    still count for HugePages)."""
    by_sid = {t["sid"]: t for t in tab}
    named = {}
    for index, spec in enumerate(specs):
        if spec.get("sid") != "*" and spec.get("sid") not in named:
            named[spec["sid"]] = index
    star = next((i for i, s in enumerate(specs) if s.get("sid") == "*"), None)
    out, seen = [], set()
    for index, spec in enumerate(specs):
        sids = [t["sid"] for t in tab if _is_database(t["sid"]) and t["sid"] not in named] \
            if spec.get("sid") == "*" else [spec.get("sid")] if named.get(spec.get("sid")) == index else []
        for sid in sids:
            if sid not in seen:
                seen.add(sid)
                out.append((sid, by_sid.get(sid), spec, index))
    if star is None:
        for t in tab:
            if _is_database(t["sid"]) and t["sid"] not in seen:
                seen.add(t["sid"])
                out.append((t["sid"], t, {}, None))
    return out


def wanted(data, inst):
    """(ordered {name: rendered}, notes): notes explain derived values."""
    spec = spec_of(data, inst)
    params = spec.get("parameters", {})
    out = {name: values.render(v) for name, v in params.items()}
    lower = {k.lower(): k for k in out}
    notes = []
    current_amm = values.to_bytes(inst["params"].get("memory_target")) or 0
    if "memory_target" in lower and values.to_bytes(out[lower["memory_target"]]) == 0 and current_amm > 0:
        sga, pga = sizing.amm_split(current_amm)
        for name, amount in (("sga_target", sga), ("pga_aggregate_target", pga)):
            if name not in lower:
                out[name] = "%dM" % (amount // MB)
                lower[name] = name
                notes.append(name)
    return out, notes


def after(data, inst):
    """{lower name: raw value} the instance will have once the plan is applied."""
    params = dict(inst["params"])
    for name, rendered in wanted(data, inst)[0].items():
        params[name.lower()] = rendered
    return params


def differs(name, current, rendered):
    return values.normalize(name, current) != values.normalize(name, rendered)
