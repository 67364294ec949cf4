"""What each instance's parameters should be after the plan: the policy's
values rendered, plus the targets an AMM switch-off needs. Pure."""
from numatune.families.oracle import sizing, values

MB = 1 << 20


def policy_instances(data):
    return (data.get("oracle") or {}).get("instance", [])


def spec_of(data, inst):
    return policy_instances(data)[inst["policy_index"]]


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
