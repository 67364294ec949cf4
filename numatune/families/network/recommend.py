"""What `numatune recommend` says per NIC. Which NICs serve Oracle (the
listener's addresses, the interconnect) is not in the facts numatune reads
offline, and MTU 9000 needs the switch ports to match: every NIC's entry is
commented out with the question to answer."""
from numatune.recommend.entry import SUPERDOME, Entry, note



def _physical(interfaces):
    return [i for n, i in sorted(interfaces.items()) if not i.get("virtual") and i.get("pci") and n != "lo"]


def recommend(facts):
    interfaces = (facts.get("network") or {}).get("interfaces") or {}
    yield from _bonds(interfaces)
    if _physical(interfaces) and not any(nic.get("bonding") for nic in interfaces.values()):
        yield note("bond", "No bond here. %s Tables 5 and 13 bond 4 ports in mode 4 (802.3ad) with "
                   "xmit_hash_policy 1 (layer3+4), in the set measured at +21%% single-stream throughput (Table 6; "
                   "no figure for it alone). A bond needs the switch's LACP port channel and new addresses: "
                   "numatune does not make one; [[bond]] sets mode and hash on a bond that exists." % SUPERDOME,
                   source=(SUPERDOME,))
    several = len((facts.get("topology") or {}).get("nodes") or {}) > 1
    for nic in _physical(interfaces):
        name, mtu = nic["name"], nic.get("mtu")
        if nic.get("master"):
            continue    # a bond's slave carries the bond's MTU: the bond's entry asks for them
        value = {"match": {"name": name}}
        if mtu is not None and mtu < 9000:
            value["mtu"] = 9000
        if several and nic.get("numa_node") not in (None, -1):
            value["irq_affinity"] = "local-node"
        if nic.get("driver") == "ixgbe":
            value["rx_flow_hash"] = {"udp4": "sdfn"}
            if _rx_usecs(nic) != 0:
                value["coalesce"] = {"rx-usecs": 0}
        if len(value) == 1:
            continue
        said = {"mtu": "MTU 9000", "irq_affinity": "IRQs on the NIC's node", "rx_flow_hash": "RSS udp4 sdfn",
                "coalesce": "rx-usecs 0"}
        value["why"] = "%s: %s for Oracle's NICs" % (SUPERDOME, ", ".join(said[k] for k in said if k in value))
        yield Entry(table="net", array=True, value=value, source=(SUPERDOME,), note=(
            "%s (driver %s, PCI %s, node %s): MTU %s now." % (name, nic.get("driver") or "?", nic.get("pci"),
                                                              nic.get("numa_node"), mtu),
            "%s Table 5 runs MTU 9000 (a UDP message over 1460 bytes is otherwise fragmented) and, on ixgbe, "
            "RSS hashing UDP by ports (sdfn), in a set measured at +21%% single-stream TCP_STREAM throughput "
            "(Table 6; no figure per setting), and keeps a NIC's interrupts on its own node. An interface whose "
            "MTU the switch does not carry drops every large frame." % SUPERDOME,) + ((
            "%s Table 13 sets ixgbe rx-usecs 0 (rx-usecs %s now; 1 in Table 5's low set, bold there as one of the "
            "settings of most effect): it turns interrupt throttling off, so each packet interrupts at once, "
            "less latency for more interrupts and CPU time on the NIC's node." % (SUPERDOME, _rx_usecs(nic)),)
            if "coalesce" in value else ()),
            question="Does %s serve Oracle (listener or interconnect), and do its switch ports carry 9000-byte "
                     "frames?" % name)


def _rx_usecs(nic):
    """The NIC's rx-usecs now, or None when not read."""
    return ((((nic.get("ethtool") or {}).get("coalesce") or {}).get("current")) or {}).get("rx-usecs")


def _bonds(interfaces):
    """A bond's mode and hash: Table 5 bonds 4 ports in mode 4 (802.3ad) with xmit_hash_policy 1 (layer3+4).
    Both need the switch's LACP port channel: asked, never set."""
    for name, nic in sorted(interfaces.items()):
        bond = nic.get("bonding")
        if not bond or (bond.get("mode") == "802.3ad" and bond.get("xmit_hash_policy") == "layer3+4"):
            continue
        yield Entry(table="bond", array=True, source=(SUPERDOME,), value={
            "name": name, "mode": "802.3ad", "xmit_hash_policy": "layer3+4",
            "why": "%s Table 5: 4-port bond, mode 4 (802.3ad), xmit_hash_policy 1 (layer3+4)" % SUPERDOME},
            note=("%s bonds %s: mode %s, xmit_hash_policy %s now." % (name, ", ".join(bond.get("slaves") or []),
                                                                      bond.get("mode"), bond.get("xmit_hash_policy")),
                  "%s Table 5 bonds 4 ports in 802.3ad with a layer3+4 hash, in the set measured at +21%% "
                  "single-stream throughput (Table 6; no figure for it alone)." % SUPERDOME),
            question="Does %s serve Oracle, and is its switch side an LACP port channel (802.3ad passes no "
                     "traffic against a switch that is not)?" % name)
