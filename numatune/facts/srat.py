"""The NUMA nodes the firmware describes, whatever the kernel was booted with.

Under ``numa=off`` the kernel shows one node, but the ACPI System Resource
Affinity Table (/sys/firmware/acpi/tables/SRAT, ACPI 6.x 5.2.16) still lists
the proximity domain of every processor and memory range: the nodes the next
boot without numa=off will have. A table that does not parse says nothing."""
import struct

SRAT = "/sys/firmware/acpi/tables/SRAT"
HEADER = 36 + 12    # the ACPI table header, then SRAT's reserved fields


def domains(data):
    """The proximity domains of the enabled CPU and memory entries, or None
    when ``data`` is not an SRAT (pure)."""
    if not data or len(data) < HEADER or data[:4] != b"SRAT":
        return None
    length = min(struct.unpack_from("<I", data, 4)[0], len(data))
    found, at = set(), HEADER
    while at + 2 <= length:
        kind, size = data[at], data[at + 1]
        if size < 2 or at + size > length:
            return None
        entry = data[at:at + size]
        if kind == 0 and size >= 16 and struct.unpack_from("<I", entry, 4)[0] & 1:
            found.add(entry[2] | (int.from_bytes(entry[9:12], "little") << 8))     # processor local APIC
        elif kind == 1 and size >= 40 and struct.unpack_from("<I", entry, 28)[0] & 1 \
                and struct.unpack_from("<Q", entry, 16)[0]:
            found.add(struct.unpack_from("<I", entry, 2)[0])                        # memory
        elif kind == 2 and size >= 24 and struct.unpack_from("<I", entry, 12)[0] & 1:
            found.add(struct.unpack_from("<I", entry, 4)[0])                        # processor x2APIC
        at += size
    return sorted(found)


def read(root):
    """{"domains": [...], "source": path} from the root's SRAT, or None."""
    found = domains(root.read_bytes(SRAT))
    return {"domains": found, "source": SRAT} if found else None

