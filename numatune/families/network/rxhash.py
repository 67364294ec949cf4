"""RSS hash fields as ethtool names them: flow types ("tcp4") and hash
letters ("sdfn"), to and from the kernel's numbers. Plain Python: a plan
checks and compares the letters without loading the ioctl's ctypes and
socket (numatune.families.network.rxnfc, the live host's)."""

# ethtool's flow-type names (ethtool.c: rxflow_str_to_type) -> the kernel's ids.
FLOW_TYPES = {
    "tcp4": 0x01, "udp4": 0x02, "sctp4": 0x03, "ah4": 0x04, "esp4": 0x04,
    "tcp6": 0x05, "udp6": 0x06, "sctp6": 0x07, "ah6": 0x08, "esp6": 0x08,
    "ip4": 0x10, "ip6": 0x11, "ether": 0x12,
}
# ethtool's letters for the RXH_* bits, in the order ethtool prints them.
HASH_BITS = [
    ("m", 1 << 1),   # RXH_L2DA: destination MAC
    ("v", 1 << 2),   # RXH_VLAN
    ("t", 1 << 3),   # RXH_L3_PROTO
    ("s", 1 << 4),   # RXH_IP_SRC
    ("d", 1 << 5),   # RXH_IP_DST
    ("f", 1 << 6),   # RXH_L4_B_0_1: source port
    ("n", 1 << 7),   # RXH_L4_B_2_3: destination port
]
RXH_DISCARD = 1 << 31  # ethtool's "r"


def flow_type(name):
    try:
        return FLOW_TYPES[name]
    except KeyError:
        raise ValueError("unknown flow type %r (one of %s)" % (name, ", ".join(sorted(FLOW_TYPES))))


def hash_to_letters(data):
    if data & RXH_DISCARD:
        return "r"
    return "".join(letter for letter, bit in HASH_BITS if data & bit)


def letters_to_hash(text):
    if text == "r":
        return RXH_DISCARD
    value = 0
    for ch in text:
        bits = [bit for letter, bit in HASH_BITS if letter == ch]
        if not bits:
            raise ValueError("unknown hash field %r in %r (letters: %s, or r alone)"
                             % (ch, text, "".join(k for k, _ in HASH_BITS)))
        value |= bits[0]
    return value


def canonical(text):
    """The letters in ethtool's order: "ds" and "sd" are the same hash."""
    return hash_to_letters(letters_to_hash(text))
