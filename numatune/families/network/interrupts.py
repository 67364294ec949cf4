"""Which IRQs serve a NIC, and how often each CPU took them: /proc/interrupts
parsed (a 480-CPU host's is 22 MB), and a NIC's IRQs found by its MSI vectors or,
where it has none (a capture), by its name in the lines' names."""
import re


# The kernel writes each count right-aligned in 10 columns after a blank (show_interrupts: "%10u " or
# " %10u"): 11 characters a CPU, a zero count is this.
_ZERO = " " * 10 + "0"
_NONZERO = "123456789"
# From this many CPUs on, a line is read in that layout first (below, splitting it is cheaper).
_COLUMNS_FROM = 128


def parse_interrupts(text):
    """/proc/interrupts -> {irq: {"counts": [per CPU], "name": str}} (numbered IRQs only)."""
    lines = (text or "").splitlines()
    if not lines:
        return {}
    ncpu = len(lines[0].split())
    width, by_column = 11 * ncpu, ncpu >= _COLUMNS_FROM
    # The last n zero columns of a line, for each n (and so any n zero columns): compared in place.
    zeros = [_ZERO * (ncpu - n) for n in range(ncpu + 1)] if by_column else None
    out = {}
    for line in lines[1:]:
        head, _, rest = line.partition(":")
        if not head.strip().isdigit():
            continue
        if by_column:
            tail = rest[width:]
            counts = _columns(rest, ncpu, zeros) if not tail or tail[0].isspace() else None
            if counts is not None:
                out[head.strip()] = {"counts": counts, "name": " ".join(tail.split())}
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


def _columns(rest, ncpu, zeros):
    """The counts of a line (after its "N:") laid out as the kernel lays them out, without splitting
    its 480 fields: each column that is not a zero found by its first digit 1-9 (str.find, in C),
    and the columns around it compared with zero columns in place. None when the line is not in
    that layout (a count wider than its column, a tab, a leading zero, many CPUs serving the IRQ):
    split it instead. ``zeros[c]``: the zero columns from column ``c`` to the end."""
    counts, column, found, width, find = [0] * ncpu, 0, 0, 11 * ncpu, rest.find
    while not rest.startswith(zeros[column], 11 * column):
        first = -1
        for digit in _NONZERO:
            at = find(digit, 11 * column, width if first == -1 else first)
            if at != -1:
                first = at
        if first == -1 or found == 8:
            return None
        nonzero = first // 11
        text = rest[11 * nonzero:11 * nonzero + 11]
        digits = text.lstrip(" ")
        # Zero columns up to it (as many as the last ones of a line), then blanks and digits alone.
        if not rest.startswith(zeros[ncpu - nonzero + column], 11 * column) or text[0] != " " \
                or not (digits.isdigit() and digits.isascii()):
            return None
        counts[nonzero] = int(digits)
        column, found = nonzero + 1, found + 1
    return counts


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
