"""RSS hash fields (``ethtool -n/-N DEV rx-flow-hash``) through the
``SIOCETHTOOL`` ioctl with the kernel's ``struct ethtool_rxnfc``.

pyroute2 has no rx-flow-hash support, and numatune never parses ethtool's text
output, so this module speaks to the kernel directly. The struct mirrors
``include/uapi/linux/ethtool.h``; tests compile the header with the system C
compiler and compare every offset and the size.

For ETHTOOL_GRXFH/SRXFH the kernel reads only ``cmd``, ``flow_type`` and
``data`` (the struct's original 16-byte form, still accepted for old
userspace); the full struct is passed anyway so a driver that looks further
reads zeros, not our stack.
"""
import ctypes
import errno
import fcntl
import socket
import struct

SIOCETHTOOL = 0x8946
ETHTOOL_GRXFH = 0x00000029
ETHTOOL_SRXFH = 0x0000002a
IFNAMSIZ = 16

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


class _FlowUnion(ctypes.Union):
    # union ethtool_flow_union: the largest member is __u8 hdata[52].
    _fields_ = [("hdata", ctypes.c_uint8 * 52)]


class _FlowExt(ctypes.Structure):
    _fields_ = [("padding", ctypes.c_uint8 * 2), ("h_dest", ctypes.c_uint8 * 6),
                ("vlan_etype", ctypes.c_uint16), ("vlan_tci", ctypes.c_uint16),
                ("data", ctypes.c_uint32 * 2)]


class FlowSpec(ctypes.Structure):
    """struct ethtool_rx_flow_spec."""
    _fields_ = [("flow_type", ctypes.c_uint32), ("h_u", _FlowUnion), ("h_ext", _FlowExt),
                ("m_u", _FlowUnion), ("m_ext", _FlowExt), ("ring_cookie", ctypes.c_uint64),
                ("location", ctypes.c_uint32)]


class RxNfc(ctypes.Structure):
    """struct ethtool_rxnfc (without the flexible rule_locs[] tail)."""
    _fields_ = [("cmd", ctypes.c_uint32), ("flow_type", ctypes.c_uint32), ("data", ctypes.c_uint64),
                ("fs", FlowSpec), ("rule_cnt", ctypes.c_uint32)]


class Unsupported(Exception):
    """The driver has no RSS hash configuration (EOPNOTSUPP/EINVAL)."""


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


def pack_ifreq(ifname, buffer_address):
    """struct ifreq: the name, then ifr_data pointing at our struct."""
    name = ifname.encode()
    if len(name) >= IFNAMSIZ:
        raise ValueError("interface name too long: %r" % ifname)
    ptr = struct.pack("P", buffer_address)
    return name.ljust(IFNAMSIZ, b"\0") + ptr + b"\0" * (40 - IFNAMSIZ - len(ptr))


def _call(ifname, nfc):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ifreq = bytearray(pack_ifreq(ifname, ctypes.addressof(nfc)))
        fcntl.ioctl(sock.fileno(), SIOCETHTOOL, ifreq)
    except OSError as e:
        if e.errno in (errno.EOPNOTSUPP, errno.EINVAL):
            raise Unsupported("%s does not support rx-flow-hash" % ifname)
        raise
    finally:
        sock.close()


def get_hash(ifname, flow):
    """The hash letters for ``flow`` ("udp4") on ``ifname``."""
    nfc = RxNfc(cmd=ETHTOOL_GRXFH, flow_type=flow_type(flow))
    _call(ifname, nfc)
    return hash_to_letters(nfc.data)


def set_hash(ifname, flow, letters):
    nfc = RxNfc(cmd=ETHTOOL_SRXFH, flow_type=flow_type(flow), data=letters_to_hash(letters))
    _call(ifname, nfc)
