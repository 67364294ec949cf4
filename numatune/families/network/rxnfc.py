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

# The names and letters live apart (a plan reads them without ctypes and socket); named here too.
from numatune.families.network.rxhash import (FLOW_TYPES, HASH_BITS, RXH_DISCARD,  # noqa: F401
                                              canonical, flow_type, hash_to_letters, letters_to_hash)

SIOCETHTOOL = 0x8946
ETHTOOL_GRXFH = 0x00000029
ETHTOOL_SRXFH = 0x0000002a
IFNAMSIZ = 16


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
