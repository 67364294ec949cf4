"""Which IRQs serve a NIC, and how often each CPU took them: /proc/interrupts
parsed (a 480-CPU host's is 22 MB), and a NIC's IRQs found by its MSI vectors or,
where it has none (a capture), by its name in the lines' names."""
import re


def parse_interrupts(text):
    """/proc/interrupts -> {irq: {"counts": [per CPU], "name": str}} (numbered IRQs only)."""
    lines = (text or "").splitlines()
    if not lines:
        return {}
    ncpu = len(lines[0].split())
    out = {}
    for line in lines[1:]:
        head, _, rest = line.partition(":")
        if not head.strip().isdigit():
            continue
        fields = rest.split()
        try:
            # A 480-CPU host's /proc/interrupts is 22 MB, and most of an IRQ's
            # counts are 0 (it runs where its affinity puts it): the zeros are
            # counted in C, and only the others found and converted (int() of
            # 2 million "0" was a tenth of a giant host's plan; testing each
            # count against "0", half of a many-NIC plan's parse).
            head_counts = fields[:ncpu]
            counts = [0] * len(head_counts)
            left = len(head_counts) - head_counts.count("0")
            i = -1
            while left:
                i += 1
                while head_counts[i] == "0":
                    i += 1
                counts[i] = int(head_counts[i])
                left -= 1
        except ValueError:
            counts = [int(x) for x in fields[:ncpu] if x.isdigit()]
        out[head.strip()] = {"counts": counts, "name": " ".join(fields[len(counts):])}
    return out


def named_irqs(name, interrupts):
    """The /proc/interrupts lines that name ``name``: as a word of the line's name, whole or before - _ @ :."""
    rx = re.compile(r"(^|[\s,])%s($|[-_@:\s,])" % re.escape(name))
    return [i for i, v in interrupts.items() if rx.search(v["name"])]


_WORDS = re.compile(r"[^\s,]+")
_NAME_ENDS = re.compile(r"[-_@:]")


def irqs_by_name(interrupts):
    """{name: [irq]} for every name named_irqs would find in a line, in one pass over the lines:
    a host whose NICs have no MSI directories (a capture) had a pattern compiled and searched over
    every line per NIC, NICs x lines searches. A name starts a word (words end at whitespace and
    commas) and ends at the word's end or before one of - _ @ :."""
    index = {}
    for irq, v in interrupts.items():
        for word in _WORDS.findall(v["name"]):
            ends = {m.start() for m in _NAME_ENDS.finditer(word)}
            ends.add(len(word))
            for end in ends:
                if end:
                    index.setdefault(word[:end], []).append(irq)
    return index


def nic_irqs(info, interrupts, index=None):
    """IRQs serving a NIC: its MSI vectors, else /proc/interrupts lines named after it. ``index``: a
    list holding irqs_by_name(interrupts) once a NIC needed it (filled here), for the other NICs."""
    irqs = [i for i in info["msi_irqs"] if i in interrupts] or list(info["msi_irqs"])
    if not irqs:
        name = info["name"]
        if index is None or not name or _WORDS.fullmatch(name) is None:
            irqs = named_irqs(name, interrupts)
        else:
            if not index:
                index.append(irqs_by_name(interrupts))
            irqs = index[0].get(name, [])
    if not irqs and info.get("legacy_irq") not in (None, "", "0"):
        irqs = [info["legacy_irq"]]
    return sorted(set(irqs), key=int)
