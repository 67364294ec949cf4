"""NICs of a synthetic giant host: ``nics`` i40e ports (dual-port cards
spread over the NUMA nodes) with ``queues`` combined queues each, one MSI-X
vector per queue plus one for the admin queue; /proc/interrupts with a
column per CPU and /proc/irq/N as the kernel lays them out; one 802.3ad bond
over the first port of the first two cards; RHEL ifcfg files.

IRQ affinities are spread round-robin over every CPU, as irqbalance
without NUMA hints leaves them: most vectors serve a remote node.
"""
import json
import os

from hosttree import cpulist, cpumask

FIRST_IRQ = 200


def nic_names(nics):
    return ["ens%df%d" % (k // 2 + 1, k % 2) for k in range(nics)]


def nic_node(k, nics, nodes):
    return k * nodes // max(nics, 1)


def write_network(tree, nics, queues, layout):
    ncpus, nodes = layout.ncpus, layout.nodes
    names = nic_names(nics)
    irq_lines = []
    irq = FIRST_IRQ
    tree.mkdir("/sys/bus/pci/drivers/i40e")
    tree.write("/sys/module/i40e/version", "2.22.18")
    tree.link("/sys/bus/pci/drivers/i40e/module", "/sys/module/i40e")
    for k, name in enumerate(names):
        node = nic_node(k, nics, nodes)
        card = k // 2
        root_bus = node * 0x20
        bus = root_bus + 0x10 + card % 0x10
        pci_addr = "0000:%02x:00.%d" % (bus, k % 2)
        pci = "/sys/devices/pci0000:%02x/0000:%02x:%02x.0/%s" % (root_bus, root_bus, 2 + card % 8, pci_addr)
        local = layout.cpus_of_node(node)
        vectors = [("i40e-%s:misc" % pci_addr, irq)] + [
            ("i40e-%s-TxRx-%d" % (name, q), irq + 1 + q) for q in range(queues)]
        tree.attrs(pci, {"numa_node": node, "local_cpulist": cpulist(local), "local_cpus": cpumask(local, ncpus),
                         "vendor": "0x8086", "device": "0x1572", "subsystem_vendor": "0x1590",
                         "subsystem_device": "0x0000", "class": "0x020000", "irq": irq, "enable": 1,
                         "current_link_speed": "8.0 GT/s PCIe", "current_link_width": 8})
        tree.link(pci + "/driver", "/sys/bus/pci/drivers/i40e")
        tree.link("/sys/bus/pci/drivers/i40e/" + pci_addr, pci)
        tree.link("/sys/bus/pci/devices/" + pci_addr, pci)
        for _, n in vectors:
            tree.write("%s/msi_irqs/%d" % (pci, n), "msix")
        net = "%s/net/%s" % (pci, name)
        _net_attrs(tree, net, name, k + 2, "3c:fd:fe:%02x:%02x:%02x" % (bus, k % 2, k), speed=25000)
        tree.link(net + "/device", pci)
        tree.link("/sys/class/net/" + name, net)
        for q in range(queues):
            rx, tx = "%s/queues/rx-%d" % (net, q), "%s/queues/tx-%d" % (net, q)
            tree.attrs(rx, {"rps_cpus": cpumask([], ncpus), "rps_flow_cnt": 0})
            tree.attrs(tx, {"xps_cpus": cpumask([local[q % len(local)]], ncpus), "xps_rxqs": "0",
                            "tx_maxrate": 0, "tx_timeout": 0})
            tree.attrs(tx + "/byte_queue_limits", {"limit": 0, "limit_max": 1879048192, "limit_min": 0,
                                                   "hold_time": 1000, "inflight": 0})
        for i, (action, n) in enumerate(vectors):
            cpu = (k * (queues + 1) + i) % ncpus
            _irq(tree, n, action, cpu, node, ncpus)
            irq_lines.append((n, cpu, action))
        irq += queues + 1
        tree.write("/etc/sysconfig/network-scripts/ifcfg-" + name,
                   'TYPE=Ethernet\nBOOTPROTO=none\nNAME=%s\nDEVICE=%s\nONBOOT=yes\n' % (name, name)
                   + ("MASTER=bond0\nSLAVE=yes\n" if name in _bond_slaves(names) else "MTU=1500\n"))
    _bond(tree, names)
    _lo(tree)
    tree.write("/numatune-snapshot/ethtool.json", json.dumps(ethtool_snapshot(names, queues), indent=1,
                                                             sort_keys=True))
    tree.write("/proc/net/route", "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\t"
               "Window\tIRTT\n" + ("bond0\t00000000\t010AA8C0\t0003\t0\t0\t300\t00000000\t0\t0\t0\n"
                                    "bond0\t000AA8C0\t00000000\t0001\t0\t0\t300\t00FFFFFF\t0\t0\t0\n"
                                    if _bond_slaves(names) else ""))
    tree.write("/proc/interrupts", interrupts_text(irq_lines, ncpus))
    tree.write("/proc/irq/default_smp_affinity", cpumask(range(ncpus), ncpus))
    tree.write("/etc/sysconfig/irqbalance", "#IRQBALANCE_ONESHOT=\n#IRQBALANCE_BANNED_CPUS=\nIRQBALANCE_ARGS=\n")
    return len(irq_lines)


def ethtool_snapshot(names, queues):
    """What `numatune snapshot` stores for ethtool settings, which sysfs does not show
    (numatune/facts/net.py documents the format): i40e defaults."""
    nic = {"channels": {"current": {"rx": 0, "tx": 0, "other": 1, "combined": queues},
                        "max": {"rx": 0, "tx": 0, "other": 1, "combined": max(queues, 64)}},
           "coalesce": {"current": {"rx-usecs": 50, "rx-frames": 0, "rx-usecs-irq": 0, "rx-frames-irq": 256,
                                    "tx-usecs": 50, "tx-frames": 0, "tx-usecs-irq": 0, "tx-frames-irq": 256,
                                    "stats-block-usecs": 0, "adaptive-rx": 1, "adaptive-tx": 1}},
           "ring": {"current": {"rx": 512, "tx": 512}, "max": {"rx": 4096, "tx": 4096}},
           "rx_flow_hash": {"current": {"tcp4": "sdfn", "udp4": "sd", "tcp6": "sdfn", "udp6": "sd"}}}
    virtual = {"channels": None, "coalesce": None, "ring": None, "rx_flow_hash": None}
    interfaces = {name: nic for name in names}
    if _bond_slaves(names):
        interfaces["bond0"] = virtual
    return {"version": 1, "interfaces": interfaces}


def _net_attrs(tree, net, name, ifindex, mac, speed):
    tree.attrs(net, {"mtu": 1500, "address": mac, "broadcast": "ff:ff:ff:ff:ff:ff", "operstate": "up",
                     "carrier": 1, "speed": speed, "duplex": "full", "ifindex": ifindex, "iflink": ifindex,
                     "type": 1, "tx_queue_len": 1000, "flags": "0x1003", "addr_len": 6, "dev_id": "0x0",
                     "dev_port": 0, "link_mode": 0, "netdev_group": 0, "proto_down": 0, "gro_flush_timeout": 0})
    tree.write(net + "/uevent", "INTERFACE=%s\nIFINDEX=%d\n" % (name, ifindex))


def _irq(tree, n, action, cpu, node, ncpus):
    d = "/proc/irq/%d" % n
    tree.attrs(d, {"smp_affinity": cpumask([cpu], ncpus), "smp_affinity_list": cpu,
                   "effective_affinity": cpumask([cpu], ncpus), "effective_affinity_list": cpu,
                   "affinity_hint": cpumask([], ncpus), "node": node,
                   "spurious": "count 1\nunhandled 0\nlast_unhandled 0 ms"})
    tree.mkdir("%s/%s" % (d, action))


def interrupts_text(irq_lines, ncpus):
    """/proc/interrupts: a header of CPU names, one row of per-CPU counts per IRQ."""
    out = ["    " + "".join("%-11s" % ("CPU%d" % c) for c in range(ncpus)).rstrip() + "\n"]
    zeros = ["%10d " % 0] * ncpus
    for n, label in ((0, "IR-IO-APIC    2-edge      timer"), (8, "IR-IO-APIC    8-edge      rtc0"),
                     (9, "IR-IO-APIC    9-fasteoi   acpi")):
        out.append("%4d: %s %s\n" % (n, "".join(zeros), label))
    for n, cpu, action in irq_lines:
        row = list(zeros)
        row[cpu] = "%10d " % (n * 7919 % 100000000)
        out.append("%4d: %s IR-PCI-MSI %d-edge      %s\n" % (n, "".join(row), n * 2048, action))
    for name, label in (("NMI", "Non-maskable interrupts"), ("LOC", "Local timer interrupts"),
                        ("RES", "Rescheduling interrupts"), ("CAL", "Function call interrupts")):
        out.append("%s: %s  %s\n" % (name, "".join("%10d " % (c * 131 + 17) for c in range(ncpus)), label))
    out.append("ERR:          0\nMIS:          0\n")
    return "".join(out)


def _bond_slaves(names):
    # The first port of the first two cards: a bond across cards survives a card failure.
    return names[0:3:2] if len(names) >= 3 else []


def _bond(tree, names):
    slaves = _bond_slaves(names)
    if not slaves:
        return
    bond = "/sys/devices/virtual/net/bond0"
    _net_attrs(tree, bond, "bond0", 1000, "3c:fd:fe:10:00:00", speed=50000)
    tree.attrs(bond + "/bonding", {"mode": "802.3ad 4", "slaves": " ".join(slaves), "miimon": 100,
                                   "xmit_hash_policy": "layer2 0", "lacp_rate": "slow 0", "ad_select": "stable 0",
                                   "active_slave": "", "primary": "", "updelay": 0, "downdelay": 0})
    tree.link("/sys/class/net/bond0", bond)
    tree.write("/sys/class/net/bonding_masters", "bond0")
    for s in slaves:
        real = os.path.realpath(tree.path + "/sys/class/net/" + s)
        host = real[len(tree.path):]
        tree.link(host + "/master", bond)
        tree.link("%s/upper_bond0" % host, bond)
        tree.attrs(host + "/bonding_slave", {"state": "active", "mii_status": "up", "link_failure_count": 0,
                                             "perm_hwaddr": "3c:fd:fe:00:00:00", "queue_id": 0,
                                             "ad_aggregator_id": 1})
        tree.link("%s/lower_%s" % (bond, s), host)
    tree.write("/etc/sysconfig/network-scripts/ifcfg-bond0",
               'DEVICE=bond0\nTYPE=Bond\nBONDING_MASTER=yes\nBOOTPROTO=none\nIPADDR=192.168.10.11\n'
               'PREFIX=24\nONBOOT=yes\nMTU=1500\nBONDING_OPTS="mode=802.3ad miimon=100"\n')
    tree.write("/proc/net/bonding/bond0",
               "Ethernet Channel Bonding Driver: v4.18.0-553.el8_10.x86_64\n\nBonding Mode: IEEE 802.3ad Dynamic "
               "link aggregation\nTransmit Hash Policy: layer2 (0)\nMII Status: up\nMII Polling Interval (ms): 100\n"
               + "".join("\nSlave Interface: %s\nMII Status: up\nSpeed: 25000 Mbps\nDuplex: full\n" % s
                         for s in slaves))


def _lo(tree):
    lo = "/sys/devices/virtual/net/lo"
    _net_attrs(tree, lo, "lo", 1, "00:00:00:00:00:00", speed=0)
    tree.write(lo + "/mtu", "65536")
    tree.write(lo + "/type", "772")
    tree.link("/sys/class/net/lo", lo)
