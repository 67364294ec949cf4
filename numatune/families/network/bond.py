"""``[[bond]]``: a bond's mode, transmit hash and link monitoring.

xmit_hash_policy and miimon change live through the bond's sysfs files. The
mode does not: the kernel refuses it while the bond is up with slaves, and
taking the bond down would cut the traffic it carries, so then the mode is a
finding and only its persistent setting (NetworkManager ``[bond]`` or
ifcfg ``BONDING_OPTS``) is planned, for the next restart of the bond.
"""
from numatune.families.network import netconf
from numatune.model import Change, Compliant, Finding, Write

KEYS = ("mode", "xmit_hash_policy", "miimon")


def diff(data, net, confirm_needed):
    ifaces = net["interfaces"]
    for i, rule in enumerate(data.get("bond", [])):
        name, rid, why = rule["name"], "bond[%d]" % i, rule.get("why", "")
        info = ifaces.get(name) or {}
        bonding = info.get("bonding")
        if bonding is None:
            yield Finding(id="net.bond.missing:%s" % name, severity="warning", area="network", target=name,
                          rule=rid, message="%s is not a bond on this host: bonding rule not met" % name)
            continue
        want = {k: rule[k] for k in KEYS if k in rule}
        live = {}
        for key, value in sorted(want.items()):
            have = bonding.get(key)
            if have == value:
                yield Compliant("net.bond.%s:%s" % (key, name), "%s %s %s" % (name, key, value), "network")
            elif key == "mode" and bonding.get("slaves") and info.get("operstate") != "down":
                yield Finding(id="net.bond.mode:%s" % name, severity="warning", area="network", target=name,
                              rule=rid, why=why,
                              message="%s runs mode %s with slaves %s, the policy wants %s: the kernel changes a "
                                      "bond's mode only while it is down; the persistent setting takes effect "
                                      "when the bond restarts (in a maintenance window)"
                                      % (name, have, " ".join(bonding["slaves"]), value))
            else:
                live[key] = value
        if live:
            yield Change(id="net.bond:%s" % name, area="network", target="%s bonding" % name,
                         current=" ".join("%s %s" % (k, bonding.get(k)) for k in sorted(live)),
                         desired=" ".join("%s %s" % kv for kv in sorted(live.items())), scope="live",
                         action="write /sys/class/net/%s/bonding/{%s}" % (name, ",".join(sorted(live))),
                         why=why, rule=rid, risk="high", needs_confirm=confirm_needed(name, net),
                         writes=[Write(kind="netdev", path="/sys/class/net/%s/bonding" % name,
                                       args={"ifname": name, "group": "bond", "values": live})])
        if not bonding.get("slaves"):
            yield Finding(id="net.bond.noslaves:%s" % name, severity="warning", area="network", target=name,
                          rule=rid, message="%s has no slaves" % name)
        if want:
            yield from _persist(name, info, want, why, rid)


def _persist(name, info, want, why, rid):
    persist = info.get("persist") or {}
    kind, path, text = persist.get("kind"), persist.get("path"), persist.get("text")
    options = {k: str(v) for k, v in want.items()}
    if kind == "nm":
        settings = {"bond": options}
        done = netconf.nm_has(text, settings)
        write = Write(kind="file", path=path, editor="net_nm", args={"settings": settings})
    elif kind == "ifcfg":
        done = netconf.bonding_opts_has(text, options)
        write = Write(kind="file", path=path, editor="net_ifcfg_bond", args={"options": options})
    else:
        yield Finding(id="net.bond.notpersisted:%s" % name, severity="warning", area="network", target=name,
                      rule=rid, message="%s has no NetworkManager or ifcfg file: its bonding options cannot be "
                                        "kept at boot by numatune" % name)
        return
    if done:
        yield Compliant("net.bond.persist:%s" % name, "%s bonding options kept at boot" % name,
                        "network", kept_by="network configuration file %s" % path)
        return
    yield Change(id="net.bond.persist:%s" % name, area="network", target="%s: %s" % (path, name), current=None,
                 desired=" ".join("%s=%s" % kv for kv in sorted(options.items())), scope="persistent",
                 action="write %s" % path, why=why, rule=rid, writes=[write])
