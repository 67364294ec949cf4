"""The NUMA nodes the firmware describes, whatever the kernel was booted with.

Under ``numa=off`` the kernel shows one node, but the ACPI System Resource
Affinity Table (/sys/firmware/acpi/tables/SRAT, ACPI 6.x 5.2.16) still lists
the proximity domain of every processor and memory range: the nodes the next
boot without numa=off will have. A table that does not parse says nothing.

Linux numbers nodes in the order it first meets the domains
(drivers/acpi/numa/srat.c, ``acpi_map_pxm_to_node``): the enabled processor
entries first, then the enabled memory entries. Kernels since 4.9 walk the
processor entries (local APIC and x2APIC) in table order in one pass; older
ones (RHEL 6's 2.6.32, RHEL 7's 3.10) walk the x2APIC entries, then the local
APIC ones. Where the two walks number the domains differently, the node ids
the next boot gives are not known and ``nodes`` says so (None), never a guess.
"""
import re
import struct

SRAT = "/sys/firmware/acpi/tables/SRAT"
CPUINFO = "/proc/cpuinfo"
HEADER = 36 + 12    # the ACPI table header, then SRAT's reserved fields


def entries(data):
    """(revision, [(kind, domain, apic id or bytes of memory present at boot)]) of the enabled
    CPU and memory entries in table order, or None when ``data`` is not an
    SRAT (pure)."""
    if not data or len(data) < HEADER or data[:4] != b"SRAT":
        return None
    length = min(struct.unpack_from("<I", data, 4)[0], len(data))
    revision = data[8]
    found, at = [], HEADER
    while at + 2 <= length:
        kind, size = data[at], data[at + 1]
        if size < 2 or at + size > length:
            return None
        entry = data[at:at + size]
        if kind == 0 and size >= 16 and struct.unpack_from("<I", entry, 4)[0] & 1:
            # The domain's high 24 bits count from SRAT revision 2 on (Linux ignores them before).
            domain = entry[2] | ((int.from_bytes(entry[9:12], "little") << 8) if revision >= 2 else 0)
            found.append(("apic", domain, entry[3]))
        elif kind == 1 and size >= 40 and struct.unpack_from("<I", entry, 28)[0] & 1 \
                and struct.unpack_from("<Q", entry, 16)[0]:
            domain = struct.unpack_from("<I", entry, 2)[0]
            flags = struct.unpack_from("<I", entry, 28)[0]
            # A hot-pluggable range (flag bit 1) names the domain but holds no memory at boot (QEMU's
            # device-memory window, a server's empty DIMM slots).
            found.append(("memory", domain & 0xff if revision <= 1 else domain,
                          (0 if flags & 2 else struct.unpack_from("<Q", entry, 16)[0])))
        elif kind == 2 and size >= 24 and struct.unpack_from("<I", entry, 12)[0] & 1:
            found.append(("x2apic", struct.unpack_from("<I", entry, 4)[0], struct.unpack_from("<I", entry, 8)[0]))
        at += size
    return revision, found


def domains(data):
    """The proximity domains of the enabled CPU and memory entries, sorted, or
    None when ``data`` is not an SRAT (pure)."""
    parsed = entries(data)
    if parsed is None:
        return None
    return sorted({domain for _, domain, _ in parsed[1]})


def _order(found, x2apic_first):
    cpus = [e for e in found if e[0] != "memory"]
    if x2apic_first:
        cpus = [e for e in cpus if e[0] == "x2apic"] + [e for e in cpus if e[0] == "apic"]
    out = []
    for _, domain, _ in cpus + [e for e in found if e[0] == "memory"]:
        if domain not in out:
            out.append(domain)
    return out


def apic_cpus(text):
    """{APIC id: logical CPU} from /proc/cpuinfo (x86 lists ``apicid``), {} without."""
    out, cpu = {}, None
    for line in (text or "").splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "processor" and value.isdigit():
            cpu = int(value)
        elif key == "apicid" and cpu is not None and re.fullmatch(r"\d{1,10}", value):
            out[int(value)] = cpu
    return out


def nodes(data, apic_map):
    """The nodes a kernel booted without numa=off gives, in Linux's numbering:
    [{"id", "domain", "cpus" (logical CPUs, None where no APIC id of the
    domain is a CPU the running kernel lists), "mem_kb"}]; None when ``data``
    is no SRAT or the numbering depends on the kernel (see above)."""
    parsed = entries(data)
    if parsed is None or not parsed[1]:
        return None
    found = parsed[1]
    order = _order(found, False)
    if order != _order(found, True):
        return None
    out = []
    for nid, domain in enumerate(order):
        apics = [a for kind, d, a in found if kind != "memory" and d == domain]
        cpus = sorted(apic_map[a] for a in apics if a in apic_map)
        mem = sum(size for kind, d, size in found if kind == "memory" and d == domain)
        out.append({"id": str(nid), "domain": domain, "cpus": cpus or None, "apic_ids": len(apics),
                    "mem_kb": mem // 1024})
    return out


def read(root):
    """{"domains", "nodes" (see ``nodes``; None when the numbering is not
    known), "source"} from the root's SRAT, or None when none is readable (a
    capture taken without root, a machine without ACPI)."""
    try:
        data = root.read_bytes(SRAT)
    except OSError:
        # Readable by root only (mode 0400): a run as a user sees none.
        return None
    found = domains(data)
    if not found:
        return None
    return {"domains": found, "nodes": nodes(data, apic_cpus(root.read_text(CPUINFO))), "source": SRAT}
