"""Network interfaces as sysfs and procfs show them: driver, PCI address,
NUMA node, local CPUs, queues, IRQs and their affinity, bonding, link state.

Ethtool settings (channels, coalescing, rings, RSS hash) do not live in
sysfs. On the live root they are read through netlink/ioctl
(:mod:`numatune.families.network.nic`); under ``--root`` they come from the snapshot file
``/numatune-snapshot/ethtool.json``, which ``numatune snapshot`` writes::

    {"version": 1,
     "interfaces": {
       "eth0": {"channels": {"current": {"rx": 0, "tx": 0, "other": 1, "combined": 8},
                             "max": {"rx": 0, "tx": 0, "other": 1, "combined": 63}},
                "coalesce": {"current": {"rx-usecs": 3, "adaptive-rx": 1, ...}},
                "ring": {"current": {"rx": 512, "tx": 512}, "max": {"rx": 4096, "tx": 4096}},
                "rx_flow_hash": {"current": {"tcp4": "sdfn", "udp4": "sd"}}},
       "veth0": {"channels": ..., "coalesce": null, "ring": null, "rx_flow_hash": null}}}

Names are ethtool's (``ethtool -C/-G/-L/-N``). ``null`` for a group: the
driver does not support it. An interface or group missing from the file:
not captured, so the plan cannot say (a finding). numatune edits this file
when it applies to a copy, so a copy converges like a host does.
"""
import json
import os
import re

from numatune.facts.cpulist import parse_cpulist
from numatune.facts.kernel import parse_uevent, read_distro
from numatune.facts.once import read_once
from numatune.facts.procs import table
from numatune.families.network import era, ethtool_text
from numatune.families.network.interrupts import nic_irqs, parse_interrupts
from numatune.families.network.keptin import ConfigFiles, persistence

NET_DIR = "/sys/class/net"
ETHTOOL_FILE = "/numatune-snapshot/ethtool.json"


def parse_route(text):
    """Interfaces carrying a default route, from /proc/net/route."""
    out = []
    for line in (text or "").splitlines()[1:]:
        fields = line.split()
        if len(fields) > 7 and fields[1] == "00000000" and fields[7] == "00000000":
            out.append(fields[0])
    return sorted(set(out))


def _int(text, default=None):
    try:
        return int(text)
    except (TypeError, ValueError):
        return default


_VIRTIO = re.compile(r"^virtio\d+$")
_PCI = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def bus_device(root, dev):
    """The device that holds a NIC's PCI attributes: ``device`` itself, or its
    parent when ``device`` is a virtio device (virtio-net: virtioN has no
    numa_node, local_cpulist or msi_irqs; its PCI function has them, as seen
    on a real 6.1 kernel in the QEMU lab)."""
    return _bus_device(root, dev)[0]


def _bus_device(root, dev):
    """(bus_device(root, dev), whether that is ``dev`` itself rather than its parent)."""
    real = root.realpath(dev)
    parent = os.path.dirname(real)
    # The name first: only a virtio device costs the two stats.
    if _VIRTIO.match(os.path.basename(real)) and not root.exists(real + "/numa_node") \
            and root.exists(parent + "/numa_node"):
        return parent, False
    return real, True


def _value(text):
    """What Root.read_value makes of a file's text."""
    return None if text is None else text.replace("\x00", "").strip()


def _by_number(names):
    """``names`` sorted by their number, a name that is none as 0 (stable): by int itself while every
    name is a number (a NIC's msi_irqs: 2,300 vectors of a many-NIC host, a Python key call each)."""
    try:
        return sorted(names, key=int)
    except ValueError:
        return sorted(names, key=lambda x: _int(x, 0))


def read_interface(root, name):
    base = "%s/%s" % (NET_DIR, name)
    driver = root.readlink(base + "/device/driver")
    # A driver link read inside the device means the device is there (its directory opened once, by that
    # readlink): only a NIC without one (virtual, or a capture without the link) asks again.
    has_device = driver is not None or root.exists(base + "/device")
    dev, own = _bus_device(root, base + "/device") if has_device else (base + "/device", True)
    # The device's files through its link, the directory exists() opened and keeps (by its real
    # path it was opened a second time); a virtio device's PCI function, its parent, by its path.
    at = base + "/device" if own else dev
    master = root.readlink(base + "/master")
    pci = os.path.basename(dev) if has_device else None
    queues = root.listdir(base + "/queues")
    # Each directory's files in one go (Root.read_texts), cleaned as read_value cleans one.
    own = {k: _value(v) for k, v in root.read_texts(base, ("mtu", "operstate", "speed", "address", "type")).items()}
    pcif = {k: _value(v) for k, v in root.read_texts(at, ("numa_node", "local_cpulist", "irq")).items()} \
        if has_device else {}
    info = {
        "name": name,
        "mtu": _int(own["mtu"]),
        "operstate": own["operstate"],
        "speed": _int(own["speed"]),
        "address": own["address"],
        "type": _int(own["type"]),
        "virtual": not has_device,
        "driver": os.path.basename(driver) if driver else parse_uevent(root.read_text(base + "/uevent")).get(
            "DEVTYPE"),
        "pci": pci if pci and _PCI.match(pci) else None,
        "numa_node": _int(pcif["numa_node"]) if has_device else None,
        "local_cpus": parse_cpulist(pcif["local_cpulist"]) if has_device else [],
        "rx_queues": len([q for q in queues if q.startswith("rx-")]),
        "tx_queues": len([q for q in queues if q.startswith("tx-")]),
        "msi_irqs": _by_number(root.listdir(at + "/msi_irqs")),
        "legacy_irq": pcif["irq"] if has_device else None,
        "master": os.path.basename(master) if master else None,
        "bonding": None,
    }
    if root.isdir(base + "/bonding"):
        b = base + "/bonding"
        info["bonding"] = {
            "mode": (root.read_value(b + "/mode") or "").split(" ")[0],
            "xmit_hash_policy": (root.read_value(b + "/xmit_hash_policy") or "").split(" ")[0],
            "miimon": _int(root.read_value(b + "/miimon")),
            "slaves": (root.read_value(b + "/slaves") or "").split(),
        }
    return info


def read_ethtool_file(root):
    text = root.read_text(ETHTOOL_FILE)
    if text is None:
        # packaging/numatune-snapshot.sh (RHEL 6/7) keeps ethtool's own text output instead.
        return ethtool_text.read(root)
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data.get("interfaces", {}) if isinstance(data, dict) else None


def irqbalance_running(root):
    return bool(table(root).by_comm(["irqbalance"]))


def ssh_interfaces(root):
    """Interfaces the current SSH session's replies leave through (live only)."""
    conn = os.environ.get("SSH_CONNECTION", "").split()
    if not root.is_live or len(conn) < 1:
        return []
    try:
        from pyroute2 import IPRoute
        with IPRoute() as ipr:
            routes = ipr.route("get", dst=conn[0])
            out = []
            for r in routes:
                index = r.get_attr("RTA_OIF")
                links = ipr.link("get", index=index) if index else []
                out += [link.get_attr("IFLA_IFNAME") for link in links]
            return out
    except Exception:  # noqa: BLE001 -- a guess at risk must never stop a plan
        return []


def read_interfaces(root):
    """{name: read_interface()} of every interface: the one pass over
    /sys/class/net that the matching, the full facts and the advice family
    use (read once per run, each caller given its own copy)."""
    return read_once(root, "net.interfaces", _read_interfaces, root)


def _read_interfaces(root):
    out = {}
    for name in root.listdir(NET_DIR):
        if name == "bonding_masters":
            continue
        info = read_interface(root, name)
        if root.is_live and info["virtual"] and not info["driver"]:
            # Virtual links have no driver symlink; rtnetlink knows their kind.
            from numatune.families.network import nic
            info["driver"] = nic.link_kind(name)
        out[name] = info
    return out


def read(root, names, ethtool_groups=True, flows=(), interfaces=None, interrupts=None):
    """Facts for the interfaces in ``names`` (all when None); the others get
    the few fields that matching needs. ``names=[]`` is that cheap pass alone.
    ``interfaces``: read_interfaces() already done (not read again);
    ``interrupts``: parse_interrupts() of an earlier read (not read again)."""
    brief = names is not None and not names
    if brief:
        interrupts = {}
    elif interrupts is None:
        interrupts = parse_interrupts(root.read_text("/proc/interrupts"))
    ifaces = {}
    snap = None if root.is_live or brief else read_ethtool_file(root)
    systemd = None if brief else era.read(root, read_distro(root))
    config = ConfigFiles(root)
    by_name = []
    cpus_of = {}    # each distinct affinity parsed once: a host's IRQs share a few CPU lists
    for name, info in (read_interfaces(root) if interfaces is None else interfaces).items():
        info = dict(info)
        if names is not None and name not in names:
            ifaces[name] = {k: info[k] for k in ("name", "driver", "pci", "address", "master", "virtual",
                                                 "numa_node", "mtu", "operstate", "bonding", "type")}
            continue
        info["irqs"] = {}
        for irq in nic_irqs(info, interrupts, by_name):
            # Alone in its directory: opened by its whole path, the directory not kept.
            affinity = root.read_value_alone("/proc/irq/%s/smp_affinity_list" % irq)
            if affinity is not None:
                cpus = cpus_of.get(affinity)
                if cpus is None:
                    cpus = cpus_of[affinity] = parse_cpulist(affinity)
                affinity = list(cpus)
            info["irqs"][irq] = {"affinity": affinity, "counts": interrupts.get(irq, {}).get("counts", [])}
        info["uevent"] = parse_uevent(root.read_text("%s/%s/uevent" % (NET_DIR, name)))
        info["persist"] = persistence(root, name, systemd, info.get("address"), config)
        if ethtool_groups:
            if root.is_live:
                from numatune.families.network import nic
                info["ethtool"] = nic.read(name, tuple(sorted(set(nic.FLOWS) | set(flows))))
            else:
                info["ethtool"] = (snap or {}).get(name)
        ifaces[name] = info
    # A snapshot may lack the "master" links; the bonds' slave lists say the same.
    for name, info in ifaces.items():
        for slave in (info.get("bonding") or {}).get("slaves", []):
            if slave in ifaces and not ifaces[slave].get("master"):
                ifaces[slave]["master"] = name
    return {
        "interfaces": ifaces,
        "default_route": parse_route(root.read_text("/proc/net/route")),
        "ssh": [] if brief else ssh_interfaces(root),
        "irqbalance": False if brief else irqbalance_running(root),
        "systemd": systemd,
        "snapshot": None if root.is_live or snap is None else (
            ETHTOOL_FILE if root.exists(ETHTOOL_FILE) else ethtool_text.TEXT_DIR),
    }


def ethtool_snapshot(root):
    """The snapshot file's content for the live host (see the module docstring)."""
    from numatune.families.network import nic
    out = {}
    for name in root.listdir(NET_DIR):
        if name in ("lo", "bonding_masters") or not root.isdir("%s/%s" % (NET_DIR, name)):
            continue
        try:
            out[name] = nic.read(name)
        except OSError:
            continue  # vanished while we looked
    return {"version": 1, "interfaces": out}


# What `numatune snapshot` adds on the live host: each NIC's sysfs files
# (through the /sys/class/net symlink, which the generic walker does not
# follow), IRQ affinities and the ethtool file. (/proc/net/route and the
# ifcfg/NetworkManager/.link files are in snapshot.PATTERNS.) Only on the live root: ethtool values need
# netlink, and a capture under --root already holds what it holds.
IFACE_FILES = ("mtu", "operstate", "speed", "address", "type", "uevent", "master",
               "bonding/mode", "bonding/xmit_hash_policy", "bonding/miimon", "bonding/slaves")
DEVICE_FILES = ("numa_node", "local_cpulist", "local_cpus", "irq", "uevent", "driver")


def snapshot_extra(root):
    """(host paths to add, {tar member name: bytes}) for a snapshot."""
    paths = []
    for name in root.listdir(NET_DIR):
        link = "%s/%s" % (NET_DIR, name)
        if not root.islink(link):
            continue
        paths.append(link)
        real = root.realpath(link)
        paths += ["%s/%s" % (real, f) for f in IFACE_FILES if root.exists("%s/%s" % (real, f))
                  or root.islink("%s/%s" % (real, f))]
        paths += ["%s/queues/%s/rps_cpus" % (real, q) for q in root.listdir(real + "/queues")
                  if root.exists("%s/queues/%s/rps_cpus" % (real, q))]
        if root.islink(real + "/device"):
            paths.append(real + "/device")
            for dev in sorted({root.realpath(real + "/device"), bus_device(root, real + "/device")}):
                paths += ["%s/%s" % (dev, f) for f in DEVICE_FILES if root.exists("%s/%s" % (dev, f))
                          or root.islink("%s/%s" % (dev, f))]
                paths += ["%s/msi_irqs/%s" % (dev, i) for i in root.listdir(dev + "/msi_irqs")]
    paths += ["/proc/irq/%s/smp_affinity_list" % i for i in root.listdir("/proc/irq") if i.isdigit()]
    data = json.dumps(ethtool_snapshot(root), indent=1, sort_keys=True) + "\n"
    return paths, {ETHTOOL_FILE.lstrip("/"): data.encode()}


def _sh_keep(path):
    return "if [ -e \"%s\" ] || [ -L \"%s\" ]; then keep_file \"%s\"; fi" % (path, path, path)


# snapshot_extra in POSIX sh (packaging/numatune-snapshot.sh, live host only): the same links and files,
# and ethtool's text output where the Python capture writes the JSON file.
SH_LIVE = "\n".join([
    "    for link in %s/*; do" % NET_DIR,
    "        [ -L \"$link\" ] || continue",
    "        keep_file \"$link\"",
    "        real=$(readlink -f \"$link\")",
    "        for f in %s; do" % " ".join(IFACE_FILES),
    "            " + _sh_keep("$real/$f"),
    "        done",
    "        for q in \"$real\"/queues/*; do",
    "            [ -e \"$q/rps_cpus\" ] && keep_file \"$q/rps_cpus\"",
    "        done",
    "        if [ -L \"$real/device\" ]; then",
    "            keep_file \"$real/device\"",
    "            dev=$(readlink -f \"$real/device\")",
    # bus_device: a virtioN without numa_node has its PCI attributes on its parent function.
    "            parent=",
    "            case ${dev##*/} in virtio*) case ${dev##*/virtio} in ''|*[!0-9]*) ;; *)",
    "                if [ ! -e \"$dev/numa_node\" ] && [ -e \"${dev%/*}/numa_node\" ]; then parent=${dev%/*}; fi ;;",
    "            esac ;; esac",
    "            for bd in \"$dev\" \"$parent\"; do",
    "                [ -n \"$bd\" ] || continue",
    "                for f in %s; do" % " ".join(DEVICE_FILES),
    "                    " + _sh_keep("$bd/$f"),
    "                done",
    "                for i in \"$bd\"/msi_irqs/*; do",
    "                    " + _sh_keep("$i"),
    "                done",
    "            done",
    "        fi",
    "    done",
    "    for d in /proc/irq/*; do",
    "        case ${d##*/} in *[!0-9]*) continue ;; esac",
    "        keep_file \"$d/smp_affinity_list\"",
    "    done",
    ethtool_text.SH_CAPTURE,
])
