"""Host-level advice of HP's Superdome X paper (001_211b0b645b2f1cc8.txt):
reads the interfaces, the process table and whether irqbalance is enabled;
the diff is pure."""
from numatune.facts.procs import table
from numatune.model import Finding

NAME = "advice"
PAPER = "001_211b0b645b2f1cc8.txt"
WANTS = ("/etc/systemd/system/multi-user.target.wants/irqbalance.service",)
RC_DIRS = ("/etc/rc.d/rc3.d", "/etc/rc3.d")


def read(root, data):
    if not root.exists("/etc/oratab"):
        return {}   # not an Oracle host: no advice (and `facts`, which reads every family, shows none)
    # Here, not at the top: the network family's code loads only on hosts that get this advice.
    from numatune.families.network.facts import read_interfaces
    nics = {name: {k: info.get(k) for k in ("mtu", "operstate", "virtual", "numa_node", "master")}
            for name, info in read_interfaces(root).items()}
    procs_table = table(root)
    procs = procs_table.by_comm(("tnslsnr", "irqbalance"))
    # A captured tree without processes (a copy, most snapshots) cannot say irqbalance is not running.
    seen = bool(procs_table.pids())
    enabled = any(root.exists(p) for p in WANTS) or any(root.glob(d, "S??irqbalance") for d in RC_DIRS)
    return {"nics": nics, "listeners": procs.get("tnslsnr", []), "irqbalance_running": "irqbalance" in procs if seen else None,
            "irqbalance_enabled": enabled}


def _f(id, severity, target, message, why, area):
    return Finding(id="advice." + id, severity=severity, area=area, target=target, rule="advice",
                   message=message, why=why)


def diff(data, facts):
    nodes = (facts.get("topology") or {}).get("summary", {}).get("nodes") or 0
    mine = facts.get(NAME) or {}
    if nodes < 2 or not mine:
        return  # one node: nothing is remote, and the paper's advice is about locality
    yield from _mtu(data, mine, nodes)
    yield from _listeners(data, mine, nodes)
    yield from _irqbalance(data, mine, nodes)


def _mtu(data, mine, nodes):
    ruled = any("mtu" in rule for rule in data.get("net", []))
    small = sorted(n for n, i in mine["nics"].items()
                   if not i["virtual"] and i["operstate"] == "up" and str(i["mtu"]) == "1500" and not i["master"])
    if small and not ruled:
        yield _f("mtu", "info", ", ".join(small),
                 "%s carr%s Oracle traffic at MTU 1500 on a %d-node host" % (
                     ", ".join(small), "ies" if len(small) == 1 else "y", nodes),
                 "Table 13 of %s gives MTU 9000, part of the network set measured at 86%% more single UDP_RR "
                 "transactions (Table 7); the switch ports must carry jumbo frames too, so opt in with a [[net]] "
                 "rule (policies/rac-interconnect.toml)" % PAPER, "network")


def _listeners(data, mine, nodes):
    if len(mine["listeners"]) != 1 or (data.get("oracle") or {}).get("listeners"):
        return
    yield _f("one-listener", "warning", "tnslsnr",
             "one listener (tnslsnr pid %d) serves a %d-node host: its NIC's interrupts and the server processes "
             "it starts gather on that NIC's node" % (mine["listeners"][0], nodes),
             "one listener per node, each on its node's NIC and started with numactl --cpunodebind, gained 25%% "
             "TPM (%s, Table 12): see [oracle.listeners]" % PAPER, "oracle")


def _irqbalance(data, mine, nodes):
    placed = any(rule.get("irq_affinity") for rule in data.get("net", []))
    if mine["irqbalance_running"] is not False or mine["irqbalance_enabled"] or placed:
        return
    yield _f("irqbalance", "warning", "irqbalance",
             "irqbalance is neither running nor enabled and no [[net]] rule sets irq_affinity: on this %d-node "
             "host device interrupts stay wherever they were first put" % nodes,
             "%s has I/O interrupts processed on the socket of the card (irqbalance for its FC HBAs); NIC "
             "locality moved TCP_STREAM and UDP_RR results by as much as 20%%: enable irqbalance or set "
             "irq_affinity = \"local-node\"" % PAPER, "cpu")
