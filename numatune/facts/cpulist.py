"""The kernel's cpulist ("0-3,8,10-11") and cpumask ("00000000,0000ff0f") formats."""


def parse_cpulist(text):
    """Sorted CPU ids of a cpulist; empty text (a CPU-less node) is no CPUs."""
    cpus = set()
    text = (text or "").replace("\x00", "").strip()
    if not text:
        return []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        stride = 1
        if ":" in part:
            # Newer kernels accept "0-15:2/4"; they never print it, but policies may use it.
            part, _, group = part.partition(":")
            used, _, stride = group.partition("/")
            start, _, end = part.partition("-")
            used, stride = int(used), int(stride)
            for base in range(int(start), int(end or start) + 1, stride):
                cpus.update(range(base, min(base + used, int(end or start) + 1)))
            continue
        start, _, end = part.partition("-")
        cpus.update(range(int(start), int(end or start) + 1, stride))
    return sorted(cpus)


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
    text = (text or "").strip().replace(",", "")
    if not text:
        return []
    value = int(text, 16)
    cpus = []
    bit = 0
    while value:
        if value & 1:
            cpus.append(bit)
        value >>= 1
        bit += 1
    return cpus
