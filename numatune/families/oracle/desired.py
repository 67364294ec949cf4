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
    have = inst["params"]
    current_amm = values.to_bytes(have.get("memory_target")) or 0
    leaving = "memory_target" in lower and values.to_bytes(out[lower["memory_target"]]) == 0
    if leaving and current_amm > 0:
        sga, pga = split(have, current_amm)
        for name, amount in (("sga_target", sga), ("pga_aggregate_target", pga)):
            if name not in lower:
                out[name] = "%dM" % (amount // MB)
                lower[name] = name
                notes.append(name)
    # HugePages need memory_max_target unset too (MOS 749851.1): with it
    # set the instance still reserves AMM's /dev/shm and ONLY cannot start.
    if leaving and (values.to_bytes(have.get("memory_max_target")) or 0) > 0 and "memory_max_target" not in lower:
        out["memory_max_target"] = "0"
        lower["memory_max_target"] = "memory_max_target"
        notes.append("memory_max_target")
    return out, notes


def split(params, memory_target):
    """(sga_target, pga_aggregate_target) bytes for leaving AMM: the
    instance's own last figures (``__sga_target``/``__pga_aggregate_target``,
    which Oracle records in the spfile) when present, else Oracle's 60/40."""
    sga = values.to_bytes(params.get("__sga_target")) or 0
    pga = values.to_bytes(params.get("__pga_aggregate_target")) or 0
    if sga > 0 and pga > 0:
        return -(-sga // MB) * MB, -(-pga // MB) * MB
    return sizing.amm_split(memory_target)


def split_source(params):
    if (values.to_bytes(params.get("__sga_target")) or 0) > 0 and \
            (values.to_bytes(params.get("__pga_aggregate_target")) or 0) > 0:
        return "the instance's own __sga_target and __pga_aggregate_target"
    return "%d%% of memory_target to the SGA, the rest PGA" % sizing.AMM_SGA_SHARE


def after(data, inst):
    """{lower name: raw value} the instance will have once the plan is applied."""
    params = dict(inst["params"])
    for name, rendered in wanted(data, inst)[0].items():
        params[name.lower()] = rendered
    return params


def differs(name, current, rendered):
    return values.normalize(name, current) != values.normalize(name, rendered)
