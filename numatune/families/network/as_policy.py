"""The network part of `numatune facts --format policy`: each Ethernet
NIC's MTU and the ethtool groups the host reports (coalescing, channels,
rings, RSS flow hashing), as ``[[net]]`` rules, one per group and selector:
a driver when every NIC of that driver has the same values (64 ports, one
rule), else the NIC's name. Bonds, IRQ affinity (IRQ numbers differ between
hosts) and values a driver reports but the policy does not name are left
out, and what the next boot would not keep (no ifcfg, keyfile or .link file
holds it) the plan of `facts --format policy` leaves out."""
from numatune.families.network.nic import CHANNELS, COALESCE, RING
from numatune.families.network.rxhash import FLOW_TYPES, canonical

GROUPS = ("mtu", "coalesce", "channels", "ring", "rx_flow_hash")
# Read every flow type's hash where the host reports them (`more` for the second read).
MORE = {"net": [{"match": {"name": "*"}, "rx_flow_hash": {f: "sd" for f in FLOW_TYPES}}]}


def _values(info, group):
    """The NIC's values of ``group`` as the policy states them, or None."""
    if group == "mtu":
        return info.get("mtu")
    eth = (info.get("ethtool") or {}).get(group)
    if not eth:
        return None
    have, maximum = eth.get("current") or {}, eth.get("max") or {}
    keys = {"coalesce": COALESCE, "channels": CHANNELS, "ring": RING, "rx_flow_hash": FLOW_TYPES}[group]
    out = {}
    for key in sorted(have):
        value = have[key]
        if key not in keys or value is None or isinstance(value, bool):
            continue
        if group in ("channels", "ring") and not maximum.get(key):
            continue  # a kind the driver lacks (a maximum of 0)
        out[key] = canonical(value) if group == "rx_flow_hash" else value
    return out or None


def _nics(facts):
    interfaces = (facts.get("network") or {}).get("interfaces") or {}
    return {n: i for n, i in interfaces.items() if n not in ("lo", "bonding_masters") and i.get("type") == 1}


def as_policy(facts):
    """({"net": [...]}, {"net": every flow type} to read the RSS hashes with)."""
    nics = _nics(facts)
    rules = []
    for group in GROUPS:
        values = {n: _values(i, group) for n, i in nics.items()}
        by_driver = {}
        for name, info in nics.items():
            by_driver.setdefault(info.get("driver"), []).append(name)
        for driver in sorted(d for d in by_driver if d):
            names = by_driver[driver]
            seen = [values[n] for n in names]
            if seen[0] is not None and all(v == seen[0] for v in seen):
                rules.append({"match": {"driver": driver}, group: seen[0]})
                continue
            rules += [{"match": {"name": n}, group: values[n]} for n in sorted(names) if values[n] is not None]
        rules += [{"match": {"name": n}, group: values[n]} for n in sorted(by_driver.get(None, []))
                  if values[n] is not None]
    return ({"net": rules} if rules else {}), MORE
