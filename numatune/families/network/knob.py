"""Network: MTU, ethtool channels/coalescing/rings/RSS hash and IRQ
affinity per NIC (``[[net]]``), bonding options (``[[bond]]``, in
:mod:`.net_bond`), and the NIC
NUMA-locality findings the Oracle papers care about.

Settings a driver does not support are findings and are never written. A
change to the interface that carries the default route or the current SSH
session is marked ``needs_confirm``: apply then arms a confirm-or-revert
window by default (see :mod:`numatune.apply.confirm`).
"""
import fnmatch

from numatune.families import bootunit
from numatune.families.network import netconf
from numatune.facts.cpulist import format_cpulist
from numatune.families.network import facts as facts_net
from numatune.model import Change, Compliant, Finding, Write
from numatune.families.network.nic import CHANNELS, COALESCE, RING
from numatune.policy.schema import WHY, Scalar, SchemaError, Table, TableArray
from numatune.families.network.rxhash import FLOW_TYPES, canonical
from numatune.families.network import bond as net_bond, findings as net_findings

NAME = "network"
GROUPS = ("channels", "coalesce", "ring", "rx_flow_hash")

_COUNT = Scalar(int, minimum=0, maximum=1 << 20)
_HASH = Scalar(str, pattern=r"^([mvtsdfn]+|r)$", doc="ethtool rx-flow-hash letters, e.g. \"sdfn\"")
_STR = Scalar(str)
POLICY = {
    "net": TableArray(Table({
        "match": Table({"name": _STR, "driver": _STR, "mac": _STR, "pci": _STR, "bond_slave_of": _STR,
                        "udev": Table(extra=_STR, extra_key=r"^[A-Z0-9_]+$",
                                      extra_doc="udev property names look like ID_NET_DRIVER")}),
        "mtu": Scalar(int, minimum=68, maximum=65535),
        "coalesce": Table({k: Scalar(int, bool, minimum=0) for k in COALESCE}),
        "rx_flow_hash": Table({k: _HASH for k in FLOW_TYPES}),
        "channels": Table({k: _COUNT for k in CHANNELS}),
        "ring": Table({k: _COUNT for k in RING}),
        "irq_affinity": Scalar(str, choices=("local-node",)),
        "why": WHY,
    })),
    "bond": TableArray(Table({
        "name": Scalar(str, pattern=r"^[A-Za-z0-9_.-]{1,15}$", doc="an interface name"),
        "mode": Scalar(str, choices=("balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad",
                                     "balance-tlb", "balance-alb")),
        "xmit_hash_policy": Scalar(str, choices=("layer2", "layer2+3", "layer3+4", "encap2+3", "encap3+4",
                                                 "vlan+srcmac")),
        "miimon": Scalar(int, minimum=0),
        "why": WHY,
    })),
}


def check_policy(data):
    for i, rule in enumerate(data.get("net", [])):
        if not rule.get("match"):
            yield SchemaError("net[%d].match" % i, "net[%d] has no match: it would change every NIC" % i,
                              'say which NICs, e.g. match = { driver = "ixgbe" } or { name = "eno*" }')
        if not any(k in rule for k in ("mtu", "irq_affinity") + GROUPS):
            yield SchemaError("net[%d]" % i, "net[%d] sets nothing" % i,
                              "add mtu, coalesce, rx_flow_hash, channels, ring or irq_affinity")
    for i, bond in enumerate(data.get("bond", [])):
        if "name" not in bond:
            yield SchemaError("bond[%d].name" % i, "bond[%d] needs a name" % i, 'e.g. name = "bond0"')


def _udev(root, info):
    """udev properties: the uevent file plus udev's database entry."""
    props = dict(info.get("uevent") or {})
    index = props.get("IFINDEX")
    for line in (root.read_text("/run/udev/data/n%s" % index) or "").splitlines() if index else []:
        if line.startswith("E:") and "=" in line:
            key, _, value = line[2:].partition("=")
            props[key] = value
    return props


def matches(match, info, udev=None):
    if info["name"] in ("lo", "bonding_masters"):
        return False
    checks = {
        "name": lambda v: fnmatch.fnmatchcase(info["name"], v),
        "driver": lambda v: info.get("driver") == v,
        "mac": lambda v: (info.get("address") or "").lower() == v.lower(),
        "pci": lambda v: info.get("pci") in (v, "0000:" + v),
        "bond_slave_of": lambda v: info.get("master") == v,
        "udev": lambda v: all((udev or {}).get(k) == val for k, val in v.items()),
    }
    return all(checks[k](v) for k, v in match.items())


def read(root, data, interrupts=None):
    """``interrupts``: see facts_net.read."""
    rules = data.get("net", [])
    if not rules and not data.get("bond"):
        return {}
    # A cheap pass over every interface decides which ones the rules name;
    # only those get the costly facts (IRQs, ethtool).
    interfaces = facts_net.read_interfaces(root)
    brief = facts_net.read(root, names=[], ethtool_groups=False, interfaces=interfaces)["interfaces"]
    use_udev = any("udev" in r.get("match", {}) for r in rules)
    wanted = []
    for name, info in brief.items():
        udev = _udev(root, dict(info, uevent=facts_net.parse_uevent(
            root.read_text("%s/%s/uevent" % (facts_net.NET_DIR, name))))) if use_udev else {}
        if any(matches(r.get("match", {}), info, udev) for r in rules if r.get("match")):
            wanted.append(name)
    wanted += [b["name"] for b in data.get("bond", []) if b.get("name") in brief and b["name"] not in wanted]
    flows = sorted({f for r in rules for f in r.get("rx_flow_hash", {})})
    need_ethtool = any(g in r for r in rules for g in GROUPS)
    full = facts_net.read(root, names=wanted, ethtool_groups=need_ethtool, flows=flows, interfaces=interfaces,
                          interrupts=interrupts)
    for name in wanted:
        full["interfaces"][name]["udev"] = _udev(root, full["interfaces"][name]) if use_udev else {}
    return full


def wanted_by_interface(data, facts):
    """{ifname: (settings {group: {key: value}}, irq_affinity, why, rules)}; later rules win key by key."""
    out = {}
    for i, rule in enumerate(data.get("net", [])):
        for name, info in facts["interfaces"].items():
            if "udev" not in info or not matches(rule["match"], info, info["udev"]):
                continue
            settings, irq, why, rules = out.get(name, ({}, None, "", []))
            if "mtu" in rule:
                settings["mtu"] = {"mtu": rule["mtu"]}
            for group in GROUPS:
                for key, value in rule.get(group, {}).items():
                    value = canonical(value) if group == "rx_flow_hash" else int(value)
                    settings.setdefault(group, {})[key] = value
            out[name] = (settings, rule.get("irq_affinity", irq), rule.get("why") or why, rules + ["net[%d]" % i])
    return out


def _confirm_needed(name, facts):
    risky = set(facts.get("default_route", [])) | set(facts.get("ssh", []))
    info = facts["interfaces"].get(name, {})
    return name in risky or info.get("master") in risky


def diff(data, facts):
    net = facts.get(NAME) or {}
    if not net:
        return
    wanted = wanted_by_interface(data, net)
    # IRQ affinity is live only (IRQ numbers change between boots): the boot unit plans it again at each boot.
    boot_keys = sorted(_irq_key(name) for name, (_, irq, _, _) in wanted.items()
                       if irq and _irq_target(net["interfaces"][name], facts["topology"]))
    kept = bootunit.kept_by(facts, NAME, boot_keys, data)
    said = {}   # each CPU list's text made once for all NICs: irqbalance spreads IRQs over a few CPUs
    for i, rule in enumerate(data.get("net", [])):
        rid = "net[%d]" % i
        if not any(rid in w[3] for w in wanted.values()):
            yield Finding(id="net.nomatch:%d" % i, severity="info", area="network", rule=rid,
                          target=str(rule["match"]), message="%s matches no interface (%s): nothing to do"
                          % (rid, ", ".join("%s=%s" % kv for kv in sorted(rule["match"].items()))))
    for name in sorted(wanted):
        settings, irq, why, rules = wanted[name]
        info = net["interfaces"][name]
        supported = {}
        for group, values in settings.items():
            ok = yield from _group(name, info, group, values, why, rules, net)
            if ok:
                supported[group] = ok
        if supported and info["virtual"] and info["persist"]["kind"] == "link":
            # udev .link files only apply to devices the kernel finds; a veth
            # or bond is kept by whatever creates it.
            yield Finding(id="net.notpersisted:%s" % name, severity="info", area="network", target=name,
                          rule=",".join(rules), live_only=True,
                          message="%s is a virtual %s link with no NetworkManager or ifcfg "
                          "file: its settings are live only" % (name, info.get("driver") or "network"))
        elif supported:
            yield from _persist(name, info, supported, why, rules)
        if irq:
            yield from _irq_affinity(name, info, facts["topology"], why, rules, net, kept, said)
    booted = set(boot_keys)     # 256 NICs: a set, not the sorted list, to look each one up in
    irq_rules = sorted({r for name, (_, _, _, rules) in wanted.items() if _irq_key(name) in booted for r in rules})
    yield from bootunit.keep(facts, NAME, boot_keys, data, "net.irq.boot", "network", rule=",".join(irq_rules))
    yield from net_bond.diff(data, net, _confirm_needed)
    yield from net_findings.findings(data, net, facts["topology"], wanted)


def _group(name, info, group, values, why, rules, net):
    """Change or findings for one group; returns the values that can be kept."""
    rule = ",".join(rules)
    driver = info.get("driver") or "this interface"
    if group == "mtu":
        current = {"mtu": info["mtu"]}
    else:
        eth = info.get("ethtool")
        if eth is None or group not in eth:
            where = net.get("snapshot") or facts_net.ETHTOOL_FILE
            yield Finding(id="net.unknown:%s:%s" % (group, name), severity="warning", area="network", target=name,
                          rule=rule, message="%s: %s settings were not captured (%s lacks them): cannot plan %s"
                          % (name, group, where, ", ".join(sorted(values))))
            return None
        if eth[group] is None:
            yield Finding(id="net.unsupported:%s:%s" % (group, name), severity="info", area="network",
                          target=name, rule=rule, message="%s does not support %s (%s): not set"
                          % (driver, group.replace("_", "-"), ", ".join(sorted(values))))
            return None
        have = eth[group].get("current", {})
        maximum = eth[group].get("max", {})
        current = {}
        for key, value in sorted(values.items()):
            if key not in have or (group == "rx_flow_hash" and have[key] is None):
                yield Finding(id="net.unsupported:%s.%s:%s" % (group, key, name), severity="info",
                              area="network", target=name, rule=rule,
                              message="%s does not support %s %s: not set" % (driver, group, key))
            elif group == "channels" and maximum.get(key) == 0:
                # veth and single-queue drivers report a maximum of 0 for kinds they lack.
                yield Finding(id="net.unsupported:%s.%s:%s" % (group, key, name), severity="info",
                              area="network", target=name, rule=rule,
                              message="%s does not support %s channels: not set" % (driver, key))
            elif key in maximum and maximum[key] is not None and value > maximum[key]:
                yield Finding(id="net.limit:%s.%s:%s" % (group, key, name), severity="warning", area="network",
                              target=name, rule=rule, message="%s: %s %s = %d is above the driver's maximum %d: "
                              "not set" % (name, group, key, value, maximum[key]))
            else:
                current[key] = canonical(have[key]) if group == "rx_flow_hash" else have[key]
        values = {k: v for k, v in values.items() if k in current}
        if not values:
            return None
    differs = {k: v for k, v in values.items() if current.get(k) != v}
    label = "%s %s" % (name, group.replace("_", "-"))
    if not differs:
        yield Compliant("net.%s:%s" % (group, name), "%s: %s" % (label, _fmt(values)), "network")
        return values
    yield Change(
        id="net.%s:%s" % (group, name), area="network", target=label,
        current=_fmt({k: current[k] for k in differs}), desired=_fmt(differs), scope="live",
        action="set through %s" % ("netlink" if group == "mtu" else "ethtool ioctl"), why=why, rule=rule,
        risk="high" if group == "mtu" else "medium", needs_confirm=_confirm_needed(name, net),
        writes=[Write(kind="netdev", path="/sys/class/net/%s" % name,
                      args={"ifname": name, "group": group, "values": differs})])
    return values


def _fmt(values):
    return " ".join("%s %s" % kv for kv in sorted(values.items()))


KIND_SAID = {"nm": "NetworkManager keyfile", "ifcfg": "ifcfg file", "link": "systemd .link file",
             "networkd": "systemd-networkd file"}


def _persist(name, info, want, why, rules):
    persist = info["persist"]
    kind = persist["kind"]
    if kind not in ("nm", "ifcfg") and "mtu" in want:
        # The MTU belongs to whatever configures the NIC: only that file keeps it.
        yield from _persist_mtu(name, persist.get("networkd"), want["mtu"], why, rules)
        want = {g: v for g, v in want.items() if g != "mtu"}
        if not want:
            return
    if kind == "none":
        yield Finding(id="net.notpersisted:%s" % name, severity="warning", area="network", target=name,
                      rule=",".join(rules), live_only=True,
                      message="%s: no NetworkManager or ifcfg file keeps it, and %s has no .link files (systemd "
                              "209+): its settings are live only" % (name, persist["era"]),
                      why="add them to the file that configures %s" % name)
        return
    yield from _persist_in(name, info, persist, want, why, rules)


def _persist_mtu(name, networkd, mtu, why, rules):
    if networkd is None:
        yield Finding(id="net.notpersisted:mtu:%s" % name, severity="warning", area="network", target=name,
                      rule=",".join(rules), live_only=True,
                      message="%s: MTU %s is live only: no ifcfg, NetworkManager keyfile or systemd-networkd file "
                              "configures %s, and a file numatune made would be a configuration of its own (one "
                              "that can bring the NIC up with no address at the next boot)" % (name, mtu["mtu"], name),
                      why="set the MTU in whatever configures %s (its NetworkManager connection, DHCP server or "
                          "network service)" % name)
        return
    path, text = networkd["path"], networkd["text"]
    settings = {"Link": {"MTUBytes": str(mtu["mtu"])}}
    if netconf.nm_has(text, settings):
        yield Compliant("net.persist.mtu:%s" % name, "%s MTU kept at boot" % name, "network",
                        kept_by="%s %s" % (KIND_SAID["networkd"], path))
        return
    yield Change(id="net.persist.mtu:%s" % name, area="network", target="%s: %s" % (path, name), current=None,
                 desired=_fmt(mtu), scope="persistent", action="write %s (systemd-networkd file)" % path,
                 why=why, rule=",".join(rules),
                 writes=[Write(kind="file", path=path, editor="net_networkd", args={"settings": settings})])


def _persist_in(name, info, persist, want, why, rules):
    kind, path = persist["kind"], persist["path"]
    text = persist.get("text")
    if kind == "nm":
        settings, missing = netconf.nm_wanted(want, info.get("type") or 1)
        done = netconf.nm_has(text, settings)
        write = Write(kind="file", path=path, editor="net_nm", args={"settings": settings})
    elif kind == "ifcfg":
        missing = []
        done = netconf.ifcfg_has(text, want, name)
        write = Write(kind="file", path=path, editor="net_ifcfg", args={"ifname": name, "want": want})
    else:
        if persist.get("era"):
            yield Finding(id="net.link-era:%s" % name, severity="info", area="network", target=path,
                          rule=",".join(rules),
                          message="%s: %s on this root (no libsystemd-shared-NNN.so, /usr/share/doc/systemd-NNN or "
                                  "99-default.link): %s is read only by systemd 209 and later"
                                  % (name, persist["era"], path))
        keys, missing = netconf.link_wanted(want)
        new = netconf.link_file(text, name, info.get("address"), keys) if keys else None
        done = not keys or new == text
        write = Write(kind="file", path=path, editor="net_link",
                      args={"ifname": name, "mac": info.get("address"), "keys": keys})
    for group, key in missing:
        yield Finding(id="net.notpersisted:%s.%s:%s" % (group, key, name), severity="warning", area="network",
                      target=path, rule=",".join(rules), live_only=True,
                      message="%s: %s %s cannot be kept in %s (%s): it is lost at reboot"
                              % (name, group, key, path, kind))
    if done:
        yield Compliant("net.persist:%s" % name, "%s settings kept at boot" % name, "network",
                        kept_by="%s %s" % (KIND_SAID.get(kind, kind), path))
        return
    # Every file a change creates is named as new in the plan.
    created = "new file " if text is None else ""
    yield Change(id="net.persist:%s" % name, area="network", target="%s%s: %s" % (created, path, name),
                 current=None, desired=" ".join(_fmt(v) for _, v in sorted(want.items())), scope="persistent",
                 action="%s %s (%s)" % ("create" if created else "write", path, KIND_SAID[kind]),
                 why=why, rule=",".join(rules), writes=[write])


def _irq_key(name):
    return "net.irq:%s" % name


def _irq_target(info, topology):
    """The CPUs of the interface's node when its IRQs can be placed there (None otherwise)."""
    node = info.get("numa_node")
    if node is None or node < 0 or not info["irqs"]:
        return None
    return (topology["nodes"].get(str(node)) or {}).get("cpus") or None


def _irq_affinity(name, info, topology, why, rules, net, kept="", said=None):
    rule = ",".join(rules)
    node = info.get("numa_node")
    if node is None or node < 0:
        yield Finding(id="net.irq.nonode:%s" % name, severity="info", area="network", target=name, rule=rule,
                      message="%s: the kernel does not know its NUMA node (numa_node %s): irq_affinity "
                              "local-node not applied" % (name, "-1" if node is not None else "missing"))
        return
    cpus = (topology["nodes"].get(str(node)) or {}).get("cpus") or []
    if not cpus:
        yield Finding(id="net.irq.nocpus:%s" % name, severity="warning", area="network", target=name, rule=rule,
                      message="%s sits on node %d, which has no CPUs: IRQs left where they are" % (name, node))
        return
    if not info["irqs"]:
        yield Finding(id="net.irq.none:%s" % name, severity="info", area="network", target=name, rule=rule,
                      message="%s: no IRQs found (no msi_irqs, not in /proc/interrupts)" % name)
        return
    if net.get("irqbalance"):
        yield Finding(id="net.irqbalance:%s" % name, severity="warning", area="network", target=name, rule=rule,
                      message="irqbalance is running and will move %s's IRQs again: it fights irq_affinity "
                              "(stop it, or ban these IRQs with IRQBALANCE_ARGS=--banirq)" % name)
    yield Finding(id="net.irq.boot:%s" % name, severity="info", area="network", target=name, rule=rule,
                  message="%s: IRQ numbers change between boots, so irq_affinity is set live, and `numatune "
                          "boot` (numatune-boot.service, or the SysV script numatune-boot) plans it again at "
                          "each boot on that boot's IRQs" % name)
    # What every IRQ of the NIC shares, once per NIC, not per IRQ (64 queues of a 60-CPU node).
    local = set(cpus)
    said = {} if said is None else said     # {CPUs: their text}: each affinity written once
    on_cpu = [str(cpu) for cpu in cpus]
    boot_key, irqs = _irq_key(name), info["irqs"]
    for i, irq in enumerate(sorted(irqs, key=int)):
        affinity = irqs[irq].get("affinity")
        if affinity is None:
            continue
        key = tuple(affinity)
        text = said.get(key)
        if text is None:
            text = said[key] = format_cpulist(affinity)
        if affinity and local.issuperset(key):
            yield Compliant("net.irq:%s:%s" % (name, irq), "%s IRQ %s on node %d (CPUs %s)"
                            % (name, irq, node, text), "network", kept_by=kept)
            continue
        # Spread over the node: IRQ i on the node's i-th CPU.
        cpu = on_cpu[i % len(on_cpu)]
        yield _irq_change(name, irq, text, cpu, rule, why, boot_key)


def _irq_change(name, irq, current, cpu, rule, why, boot_key):
    """The change of one IRQ's affinity, Change(id=..., area="network", target=..., current=current,
    desired=cpu, scope="live", rule=rule, why=why, action=..., boot_key=boot_key, writes=[a value
    write of ``cpu``]), its fields given in their order: a many-NIC plan makes 2,300 of them, and
    a record's 19 fields bound by keyword cost three times what they cost by position
    (tests/test_net_irq_change.py holds the two equal)."""
    path = "/proc/irq/%s/smp_affinity_list" % irq
    return Change("net.irq:%s:%s" % (name, irq), "network", "%s IRQ %s" % (name, irq), current, cpu, "live",
                  "write " + path, why, False, False, "low", rule, [Write("value", path, cpu, "plain")],
                  False, "", False, False, "", boot_key)


EDITORS = dict(netconf.EDITORS)
