"""The kernel's cpulist ("0-3,8,10-11") and cpumask ("00000000,0000ff0f") formats."""
import re


# The largest CPU (or node) id numatune accepts: RHEL's kernels are built
# with NR_CPUS = 8192; a list naming ids past this is not a real host's, and
# "0-2000000000" must fail here, not allocate two billion ints.
MAX_ID = 65535


class CpulistError(ValueError):
    """Text that is not a kernel cpulist or cpumask (the message says why)."""


_PART = re.compile(r"(\d+)(?:-(\d+))?(?::(\d+)/(\d+))?")


def parse_cpulist(text):
    """Sorted CPU ids of a cpulist; empty text (a CPU-less node) is no CPUs.
    Raises CpulistError for anything else: a reversed range (9-1), a zero
    stride (0-3:1/0), ids above MAX_ID, letters."""
    cpus = set()
    text = (text or "").replace("\x00", "").strip()
    if not text:
        return []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        m = _PART.fullmatch(part)
        if not m:
            raise CpulistError("%r is not a cpulist (like 0-3,8,10-11)" % _short(text))
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) is not None else start
        if end < start:
            raise CpulistError("%r: the range %s runs backwards" % (_short(text), part))
        if end > MAX_ID:
            raise CpulistError("%r: id %d is above %d" % (_short(text), end, MAX_ID))
        if m.group(3) is None:
            cpus.update(range(start, end + 1))
            continue
        # Newer kernels accept "0-15:2/4"; they never print it, but policies may use it.
        used, stride = int(m.group(3)), int(m.group(4))
        if used == 0 or stride == 0 or used > stride:
            raise CpulistError("%r: %s needs 0 < used <= group size" % (_short(text), part))
        for base in range(start, end + 1, stride):
            cpus.update(range(base, min(base + used, end + 1)))
    return sorted(cpus)


def _short(text):
    return text if len(text) <= 60 else text[:57] + "..."


def format_cpulist(cpus):
    """The kernel's own compact form: ranges of consecutive ids."""
    cpus = sorted(set(cpus))
    out = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def parse_cpumask(text):
    """CPU ids of a comma-separated hex mask, most significant word first."""
    text = (text or "").replace("\x00", "").strip().replace(",", "")
    if not text:
        return []
    if not re.fullmatch(r"[0-9a-fA-F]+", text) or len(text) > (MAX_ID + 1) // 4:
        raise CpulistError("%r is not a cpumask (hex words like 0000ff0f)" % _short(text))
    value = int(text, 16)
    cpus = []
    bit = 0
    while value:
        if value & 1:
            cpus.append(bit)
        value >>= 1
        bit += 1
    return cpus
