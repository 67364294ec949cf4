"""/proc/interrupts parsed: each IRQ's per-CPU counts and its name. The zeros are counted in C and
only the other counts converted (#38: 2,300 IRQs x 64 CPUs of a many-NIC plan); the result is what
converting every count gives, and a line whose counts are not all numbers reads as before."""
from hypothesis import given, settings
from hypothesis import strategies as st

from numatune.families.network.interrupts import parse_interrupts


def _every_count(text):
    """parse_interrupts by its definition: every count of a line converted."""
    lines = text.splitlines()
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
            counts = [int(x) for x in fields[:ncpu]]
        except ValueError:
            counts = [int(x) for x in fields[:ncpu] if x.isdigit()]
        out[head.strip()] = {"counts": counts, "name": " ".join(fields[len(counts):])}
    return out


_FIELDS = st.sampled_from(["0", "0", "0", "0", "7", "12", "00", "+3", "\u0663", "IR-PCI-MSI", "edge", "eth0-rx-0",
                           "x1", "-"])


@settings(max_examples=300)
@given(st.integers(1, 6), st.lists(st.tuples(st.sampled_from(["0", "17", " 5", "NMI", "x"]),
                                             st.lists(_FIELDS, max_size=9)), max_size=8))
def test_interrupts_parse_as_converting_every_count(ncpu, rows):
    text = "".join(["  ".join("CPU%d" % i for i in range(ncpu)) + "\n"] +
                   ["%s: %s\n" % (head, "   ".join(fields)) for head, fields in rows])
    assert parse_interrupts(text) == _every_count(text)


def test_a_many_cpu_line_keeps_each_count_in_its_column():
    head = " ".join("CPU%d" % i for i in range(64))
    counts = [0] * 64
    counts[5], counts[63], counts[0] = 12, 4, 7
    text = "%s\n 130: %s  IR-PCI-MSI 524288-edge  eth0-TxRx-0\n" % (head, " ".join(map(str, counts)))
    assert parse_interrupts(text) == {"130": {"counts": counts, "name": "IR-PCI-MSI 524288-edge eth0-TxRx-0"}}


_EDITS = st.sampled_from(["", "\t", "00", "+3", "\u0663", "12345678901", "1 2", "x", " ", "-1", "5" * 10])


@settings(max_examples=300)
@given(st.integers(128, 131), st.lists(st.tuples(
    st.sampled_from(["0", "17", " 5", "NMI"]),
    st.lists(st.tuples(st.integers(0, 131), st.integers(1, 4294967295)), max_size=12),
    st.lists(st.tuples(st.integers(0, 131 * 11), _EDITS), max_size=2),
    st.sampled_from(["  IR-PCI-MSI 524288-edge  eth0-TxRx-0", "", "\tx 1", "7 eth1", " ", "  PCI-MSI\x0b2"]),
    st.integers(-3, 0)), max_size=6))
def test_many_cpu_lines_in_the_kernels_layout_parse_as_converting_every_count(ncpu, rows):
    """From 128 CPUs on a line is read by its columns (11 characters a CPU, as the kernel writes them);
    whatever the line holds, that reads what converting every count reads."""
    lines = ["".join("%-11s" % ("CPU%d" % i) for i in range(ncpu))]
    for head, served, edits, name, cut in rows:
        counts = [0] * ncpu
        for cpu, count in served:
            counts[cpu % ncpu] = count
        body = "".join(" %10d" % c for c in counts)
        for at, edit in edits:
            body = body[:at] + edit + body[at + len(edit):]
        line = "%s:%s%s" % (head, body, name)
        lines.append(line[:len(line) + cut] if cut else line)
    text = "\n".join(lines) + "\n"
    assert parse_interrupts(text) == _every_count(text)


def test_a_many_cpu_line_in_the_kernels_layout_keeps_each_count_in_its_column():
    head = "".join("%-11s" % ("CPU%d" % i) for i in range(480))
    counts = [0] * 480
    counts[0], counts[200], counts[479] = 7, 4294967295, 1
    text = "%s\n 130:%s  IR-PCI-MSI 524288-edge  eth0-TxRx-0\n 131:%s\n" % (
        head, "".join(" %10d" % c for c in counts), " %10d" % 0 * 480)
    assert parse_interrupts(text) == {"130": {"counts": counts, "name": "IR-PCI-MSI 524288-edge eth0-TxRx-0"},
                                      "131": {"counts": [0] * 480, "name": ""}}
