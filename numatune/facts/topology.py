"""NUMA nodes, CPUs and HugePages pools, as the kernel shows them in sysfs.

Parsers are pure (text in, data out) and tested on real captures; ``read``
does the I/O. Sparse node ids, CPU-less nodes and memory-less nodes are normal:
nothing here assumes ids are 0..n-1.
"""
import re

from numatune.errors import HostError
from numatune.facts.cpulist import CpulistError, parse_cpulist, parse_cpumask
from numatune.facts import srat
from numatune.facts.once import read_once

NODE_DIR = "/sys/devices/system/node"
CPU_DIR = "/sys/devices/system/cpu"
HUGEPAGES_DIR = "/sys/kernel/mm/hugepages"


def parse_meminfo(text):
    """/proc/meminfo or a node's meminfo -> {field: int} (kB fields in kB)."""
    out = {}
    for line in (text or "").splitlines():
        # node files prefix "Node 0 "; values may carry a "kB" unit.
        m = re.match(r"^(?:Node\s+\d+\s+)?([A-Za-z0-9_()]+):\s+(\d{1,18})\b", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def parse_distance(text):
    words = (text or "").split()
    if not all(w.isdigit() and len(w) < 6 for w in words):
        raise ValueError("%r is not a list of distances" % (text if len(text) < 60 else text[:57] + "..."))
    return [int(x) for x in words]


def _parsed(parse, root, path, text):
    """``parse(text)``, or a one-line HostError naming the file."""
    try:
        return parse(text)
    except (CpulistError, ValueError) as e:
        raise HostError("%s: %s" % (path, e),
                        "the file is not in the kernel's format; numatune plans nothing from it")


def hugepage_size_kb(dirname):
    m = re.match(r"^hugepages-(\d+)kB$", dirname)
    return int(m.group(1)) if m else None


def read_pools(root, directory):
    """{size_kb: {"nr": n, "free": n, "surplus": n}} of a hugepages dir."""
    pools = {}
    for name in root.listdir(directory):
        size = hugepage_size_kb(name)
        if size is None:
            continue
        pool = {}
        for field in ("nr", "free", "surplus"):
            value = root.read_value("%s/%s/%s_hugepages" % (directory, name, field))
            if value is not None and re.fullmatch(r"\d{1,18}", value):
                pool[field] = int(value)
        pools[str(size)] = pool
    return pools


def _node_ids(root):
    ids = []
    for name in root.listdir(NODE_DIR):
        m = re.match(r"^node(\d+)$", name)
        if m:
            ids.append(int(m.group(1)))
    return sorted(ids)


def read_nodes(root):
    nodes = {}
    ids = _node_ids(root)
    for nid in ids:
        base = "%s/node%d" % (NODE_DIR, nid)
        cpulist = root.read_value(base + "/cpulist")
        if cpulist is not None:
            cpus = _parsed(parse_cpulist, root, base + "/cpulist", cpulist)
        else:
            # Old kernels and trimmed captures only have the hex mask.
            cpus = _parsed(parse_cpumask, root, base + "/cpumap", root.read_value(base + "/cpumap", ""))
        meminfo = parse_meminfo(root.read_text(base + "/meminfo"))
        distance = _parsed(parse_distance, root, base + "/distance", root.read_value(base + "/distance", ""))
        nodes[str(nid)] = {
            "cpus": cpus,
            "mem_total_kb": meminfo.get("MemTotal"),
            "mem_free_kb": meminfo.get("MemFree"),
            "hugepages_total": meminfo.get("HugePages_Total"),
            "hugepages_free": meminfo.get("HugePages_Free"),
            "distance_raw": distance,
            "hugepages": read_pools(root, base + "/hugepages"),
        }
    # The kernel prints distances in the order of online (or possible) node ids.
    order = _parsed(parse_cpulist, root, NODE_DIR + "/online", root.read_value(NODE_DIR + "/online", "")) or ids
    for nid, node in nodes.items():
        raw = node.pop("distance_raw")
        peers = order if len(order) == len(raw) else ids
        node["distance"] = {str(p): d for p, d in zip(peers, raw)} if len(peers) == len(raw) else {}
    return nodes


def nodes_with_memory(root, nodes):
    listed = root.read_value(NODE_DIR + "/has_memory")
    if listed is not None:
        return [str(n) for n in _parsed(parse_cpulist, root, NODE_DIR + "/has_memory", listed)]
    return [nid for nid, n in nodes.items() if (n.get("mem_total_kb") or 0) > 0]


_TOPOLOGY_FILES = ("physical_package_id", "core_id", "die_id", "thread_siblings_list")
_ID = re.compile(r"-?\d{1,9}")


def read_cpus(root):
    """({cpu: topology ids}, online cpus), read once per run (several families ask)."""
    return read_once(root, "cpus", _read_cpus, root)


def _read_cpus(root):
    online_text = root.read_value(CPU_DIR + "/online")
    cpus = {}
    for name in root.listdir(CPU_DIR):
        m = re.match(r"^cpu(\d+)$", name)
        if not m:
            continue
        base = "%s/%s/topology" % (CPU_DIR, name)
        entry = {}
        # A CPU's topology files in one go (Root.read_values: the directory opened once; 480 CPUs).
        texts = root.read_values(base, _TOPOLOGY_FILES)
        for field in _TOPOLOGY_FILES[:3]:
            value = texts[field]
            if value is not None and _ID.fullmatch(value):
                entry[field] = int(value)
        siblings = texts["thread_siblings_list"]
        if siblings is not None:
            entry["threads"] = _parsed(parse_cpulist, root, base + "/thread_siblings_list", siblings)
        else:
            # Kernels before the _list files (ia64's 2.6.18 on RHEL 5) give only the mask.
            mask = root.read_value(base + "/thread_siblings")
            if mask is not None:
                entry["threads"] = _parsed(parse_cpumask, root, base + "/thread_siblings", mask)
        cpus[m.group(1)] = entry
    online = (_parsed(parse_cpulist, root, CPU_DIR + "/online", online_text) if online_text
              else sorted(int(c) for c in cpus))
    return cpus, online


def _core(cpu, entry, nodes):
    """What tells one core from another. core_id repeats across the dies (and
    NUMA nodes) of one package on multi-die CPUs (AMD Magny-Cours: 2 dies of 6
    cores per socket, core_id 0-5 on both), so (package, core_id) undercounts;
    the thread siblings list is one core's own, whatever the numbering."""
    if entry.get("threads"):
        return tuple(entry["threads"])
    node = next((nid for nid, n in nodes.items() if int(cpu) in n["cpus"]), None)
    return (entry.get("physical_package_id"), entry.get("die_id"), node, entry["core_id"])


def summarize(nodes, cpus, online):
    packages = {c["physical_package_id"] for c in cpus.values() if "physical_package_id" in c}
    cores = {_core(cpu, c, nodes) for cpu, c in cpus.items() if "core_id" in c or c.get("threads")}
    threads = max((len(c.get("threads", [])) for c in cpus.values()), default=0)
    return {
        "sockets": len(packages) or None,
        "cores": len(cores) or None,
        "threads_per_core": threads or None,
        "cpus_online": len(online),
        "nodes": len(nodes),
    }


def read(root):
    nodes = read_nodes(root)
    cpus, online = read_cpus(root)
    meminfo = parse_meminfo(root.read_text("/proc/meminfo"))
    return {
        "nodes": nodes,
        "nodes_with_memory": nodes_with_memory(root, nodes),
        "cpus": cpus,
        "online": online,
        "summary": summarize(nodes, cpus, online),
        "meminfo": {k: v for k, v in meminfo.items()
                    if k in ("MemTotal", "MemFree", "HugePages_Total", "HugePages_Free",
                             "HugePages_Rsvd", "HugePages_Surp", "Hugepagesize", "AnonHugePages")},
        "hugepages": read_pools(root, HUGEPAGES_DIR),
        # The nodes the firmware describes: what a boot without numa=off will show.
        "firmware": srat.read(root),
    }
