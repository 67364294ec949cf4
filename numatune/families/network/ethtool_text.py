"""ethtool's plain-text output, for hosts that cannot run numatune (RHEL 6/7):
packaging/numatune-snapshot.sh runs ``ethtool -i -k -c -g -l -n`` (and
``-n IF rx-flow-hash FLOW``) per interface into
``/numatune-snapshot/ethtool/<IF>``, and the planning side parses it here into
the same shape as the JSON snapshot (:mod:`numatune.families.network.nic`):
``{group: {"current": {...}, "max": {...}} or None}``.

Each command's output is one section::

    ### ethtool -c eth0
    Coalesce parameters for eth0:
    ...
    ### exit 0

A non-zero exit ("Operation not supported") is a group the driver lacks
(None). ``n/a`` is what ethtool prints for a field the driver leaves at 0 (the
ioctl reads 0, which is what a live read sees); in rings it means the ring does
not exist and is left out, as a live read leaves it out. Text this parser
does not recognise is "not captured" (the group is missing: a warning at plan
time, nothing planned), never a guess.
"""
import re

from numatune.families.network.nic import CHANNELS, COALESCE, FLOWS, RING

TEXT_DIR = "/numatune-snapshot/ethtool"
OPTIONS = ("-i", "-k", "-c", "-g", "-l", "-n")
HEADER = re.compile(r"^### ethtool (.*)$")
EXIT = re.compile(r"^### exit (\d+)$")
# ethtool -c spells a few names differently from -C ("rx-frame-low").
COALESCE_ALIASES = {n.replace("frames-", "frame-"): n for n in COALESCE if "frames-" in n}
RING_LABELS = {"RX": "rx", "RX Mini": "rx-mini", "RX Jumbo": "rx-jumbo", "TX": "tx"}
CHANNEL_LABELS = {"RX": "rx", "TX": "tx", "Other": "other", "Combined": "combined"}
# ethtool -n IF rx-flow-hash FLOW prints one line per field; the letters are ethtool -N's.
HASH_FIELDS = {"L2DA": "m", "VLAN tag": "v", "L3 proto": "t", "IP SA": "s", "IP DA": "d",
               "L4 bytes 0 & 1 [TCP/UDP src port]": "f", "L4 bytes 2 & 3 [TCP/UDP dst port]": "n"}
HASH_ORDER = "mvtsdfnr"


class Unparsed(ValueError):
    """Output this parser does not understand: the group counts as not captured."""


# The POSIX sh that writes the files (packaging/numatune-snapshot.sh, live host only).
SH_CAPTURE = "\n".join([
    "    if command -v ethtool >/dev/null 2>&1; then",
    "        mkdir -p \"$TMP%s\"" % TEXT_DIR,
    "        for link in /sys/class/net/*; do",
    "            name=${link##*/}",
    "            [ \"$name\" = lo ] || [ ! -d \"$link\" ] && continue",
    "            for args in %s; do" % " ".join("'%s'" % o for o in OPTIONS + tuple(
        "-n rx-flow-hash %s" % f for f in FLOWS)),
    "                set -- $args",
    "                opt=$1; shift",
    "                { echo \"### ethtool $opt $name${1:+ $*}\"; ethtool \"$opt\" \"$name\" \"$@\" 2>&1;"
    " echo \"### exit $?\"; } >> \"$TMP%s/$name\"" % TEXT_DIR,
    "            done",
    "        done",
    "    else",
    "        echo \"numatune-snapshot: no ethtool here: NIC settings are not captured\" >&2",
    "    fi",
])


def sections(text):
    """{command after 'ethtool ' with the interface removed: (exit status, output lines)}."""
    out, command, lines = {}, None, []
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            command, lines = m.group(1).split(), []
            continue
        m = EXIT.match(line)
        if m and command is not None:
            # "-c eth0" -> "-c"; "-n eth0 rx-flow-hash tcp4" -> "-n rx-flow-hash tcp4"
            out[" ".join([command[0]] + command[2:])] = (int(m.group(1)), lines)
            command = None
            continue
        if command is not None:
            lines.append(line)
    return out


def _number(value, what):
    value = value.strip()
    if value == "n/a":
        return None
    if not value.isdigit():
        raise Unparsed("%s: %r is not a number" % (what, value))
    return int(value)


def _pairs(lines, labels, what):
    """Two blocks ("Pre-set maximums:", "Current hardware settings:") of "Label: N" lines."""
    block, out = None, {"max": {}, "current": {}}
    for line in lines:
        if line.startswith("Pre-set maximums"):
            block = "max"
        elif line.startswith("Current hardware settings"):
            block = "current"
        elif block and ":" in line:
            label, value = (s.strip() for s in line.split(":", 1))
            if label in labels:
                out[block][labels[label]] = _number(value, what)
    if not out["current"]:
        raise Unparsed("%s: no current settings" % what)
    return out


def parse_channels(lines):
    got = _pairs(lines, CHANNEL_LABELS, "channels")
    # n/a: the driver has no such channel type; a live read gets 0 for it.
    return {k: {name: got[k].get(name) or 0 for name in CHANNELS} for k in ("current", "max")}


def parse_ring(lines):
    got = _pairs(lines, RING_LABELS, "ring")
    return {k: {name: v for name, v in got[k].items() if v is not None} for k in ("current", "max")}


def parse_coalesce(lines):
    current = {}
    for line in lines:
        m = re.match(r"^Adaptive RX:\s*(\S+)\s+TX:\s*(\S+)", line)
        if m:
            current["adaptive-rx"], current["adaptive-tx"] = (1 if v == "on" else 0 for v in m.groups())
            continue
        if ":" not in line:
            continue
        label, value = (s.strip() for s in line.split(":", 1))
        name = COALESCE_ALIASES.get(label, label)
        if name in COALESCE:
            current[name] = _number(value, "coalesce %s" % name) or 0
    if "rx-usecs" not in current:
        raise Unparsed("coalesce: no rx-usecs line")
    return {"current": {name: current.get(name, 0) for name in COALESCE}}


def parse_flow_hash(lines):
    """ethtool -N letters for one flow type."""
    letters = ""
    for line in lines:
        line = line.strip()
        if not line or line.endswith("for computing Hash flow key:") or line == "None":
            continue
        if "discarded" in line:
            letters += "r"
        elif line in HASH_FIELDS:
            letters += HASH_FIELDS[line]
        else:
            raise Unparsed("rx-flow-hash: unknown field %r" % line)
    return "".join(sorted(letters, key=HASH_ORDER.index))


PARSERS = {"channels": ("-l", parse_channels), "coalesce": ("-c", parse_coalesce), "ring": ("-g", parse_ring)}


def parse(text):
    """The groups of one interface's capture; a group whose output is not understood is left out."""
    found = sections(text)
    out = {}
    for group, (option, parser) in PARSERS.items():
        if option not in found:
            continue
        status, lines = found[option]
        try:
            out[group] = None if status != 0 else parser(lines)
        except Unparsed:
            continue
    hashes = {}
    for flow in FLOWS:
        status, lines = found.get("-n rx-flow-hash %s" % flow, (None, None))
        if status is None:
            continue
        try:
            hashes[flow] = None if status != 0 else parse_flow_hash(lines)
        except Unparsed:
            hashes.pop(flow, None)
    if hashes:
        out["rx_flow_hash"] = {"current": hashes} if any(v is not None for v in hashes.values()) else None
    return out


def read(root):
    """{interface: groups} from the text capture under ``root``, or None when there is none."""
    names = root.listdir(TEXT_DIR)
    if not names:
        return None
    out = {}
    for name in names:
        text = root.read_text("%s/%s" % (TEXT_DIR, name))
        if text is not None:
            out[name] = parse(text)
    return out
