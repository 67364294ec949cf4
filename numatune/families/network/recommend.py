"""What `numatune recommend` says per NIC. Which NICs serve Oracle (the
listener's addresses, the interconnect) is not in the facts numatune reads
offline, and MTU 9000 needs the switch ports to match: every NIC's entry is
commented out with the question to answer."""
from numatune.recommend.entry import SUPERDOME, Entry



def _physical(interfaces):
    return [i for n, i in sorted(interfaces.items()) if not i.get("virtual") and i.get("pci") and n != "lo"]


def recommend(facts):
    interfaces = (facts.get("network") or {}).get("interfaces") or {}
    several = len((facts.get("topology") or {}).get("nodes") or {}) > 1
    for nic in _physical(interfaces):
        name, mtu = nic["name"], nic.get("mtu")
        value = {"match": {"name": name}}
        if mtu is not None and mtu < 9000:
            value["mtu"] = 9000
        if several and nic.get("numa_node") not in (None, -1):
            value["irq_affinity"] = "local-node"
        if nic.get("driver") == "ixgbe":
            value["rx_flow_hash"] = {"udp4": "sdfn"}
        if len(value) == 1:
            continue
        value["why"] = "%s: MTU 9000, IRQs on the NIC's node, RSS udp4 sdfn for Oracle's NICs" % SUPERDOME
        yield Entry(table="net", array=True, value=value, source=(SUPERDOME,), note=(
            "%s (driver %s, PCI %s, node %s): MTU %s now." % (name, nic.get("driver") or "?", nic.get("pci"),
                                                              nic.get("numa_node"), mtu),
            "%s Table 5 runs MTU 9000 (a UDP message over 1460 bytes is otherwise fragmented) and, on ixgbe, "
            "RSS hashing UDP by ports (sdfn), in a set measured at +21%% single-stream TCP_STREAM throughput "
            "(Table 6; no figure per setting), and keeps a NIC's interrupts on its own node. An interface whose "
            "MTU the switch does not carry drops every large frame." % SUPERDOME),
            question="Does %s serve Oracle (listener or interconnect), and do its switch ports carry 9000-byte "
                     "frames?" % name)
