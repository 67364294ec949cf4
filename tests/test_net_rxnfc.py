"""struct ethtool_rxnfc as numatune packs it, checked against the kernel
header compiled by the system C compiler, and the rx-flow-hash letters."""
import ctypes
import os
import shutil
import struct
import subprocess

import pytest
from hypothesis import given, strategies as st

from numatune.families.network import rxnfc

HEADER = "/usr/include/linux/ethtool.h"
PROBE = r"""
#include <stddef.h>
#include <stdio.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
int main(void) {
    printf("rxnfc %zu\n", sizeof(struct ethtool_rxnfc));
    printf("cmd %zu\n", offsetof(struct ethtool_rxnfc, cmd));
    printf("flow_type %zu\n", offsetof(struct ethtool_rxnfc, flow_type));
    printf("data %zu\n", offsetof(struct ethtool_rxnfc, data));
    printf("fs %zu\n", offsetof(struct ethtool_rxnfc, fs));
    printf("rule_cnt %zu\n", offsetof(struct ethtool_rxnfc, rule_cnt));
    printf("spec %zu\n", sizeof(struct ethtool_rx_flow_spec));
    printf("ring_cookie %zu\n", offsetof(struct ethtool_rx_flow_spec, ring_cookie));
    printf("location %zu\n", offsetof(struct ethtool_rx_flow_spec, location));
    printf("m_ext %zu\n", offsetof(struct ethtool_rx_flow_spec, m_ext));
    printf("GRXFH %d\nSRXFH %d\nSIOCETHTOOL %d\n", ETHTOOL_GRXFH, ETHTOOL_SRXFH, SIOCETHTOOL);
    printf("TCP_V4_FLOW %d\nUDP_V4_FLOW %d\nTCP_V6_FLOW %d\nUDP_V6_FLOW %d\nIPV4_FLOW %d\nETHER_FLOW %d\n",
           TCP_V4_FLOW, UDP_V4_FLOW, TCP_V6_FLOW, UDP_V6_FLOW, IPV4_FLOW, ETHER_FLOW);
    printf("RXH_L2DA %d\nRXH_IP_SRC %d\nRXH_IP_DST %d\nRXH_L4_B_0_1 %d\nRXH_L4_B_2_3 %d\nRXH_DISCARD %u\n",
           RXH_L2DA, RXH_IP_SRC, RXH_IP_DST, RXH_L4_B_0_1, RXH_L4_B_2_3, (unsigned)RXH_DISCARD);
    printf("ifreq %zu\nifr_data %zu\n", sizeof(struct ifreq), offsetof(struct ifreq, ifr_data));
    return 0;
}
"""


@pytest.fixture(scope="module")
def kernel_layout(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc or not os.path.exists(HEADER):
        pytest.skip("needs a C compiler and linux-libc-dev (%s)" % HEADER)
    d = tmp_path_factory.mktemp("rxnfc")
    (d / "probe.c").write_text(PROBE)
    subprocess.run([cc, "-o", str(d / "probe"), str(d / "probe.c")], check=True)
    out = subprocess.run([str(d / "probe")], capture_output=True, text=True, check=True).stdout
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}


def test_struct_matches_the_kernel_header(kernel_layout):
    k = kernel_layout
    R, F = rxnfc.RxNfc, rxnfc.FlowSpec
    assert R.cmd.offset == k["cmd"]
    assert R.flow_type.offset == k["flow_type"]
    assert R.data.offset == k["data"]
    assert R.fs.offset == k["fs"]
    assert R.rule_cnt.offset == k["rule_cnt"]
    # The header's flexible rule_locs[] adds no size: ours ends at the same byte.
    assert ctypes.sizeof(R) == k["rxnfc"]
    assert ctypes.sizeof(F) == k["spec"]
    assert F.ring_cookie.offset == k["ring_cookie"]
    assert F.location.offset == k["location"]
    assert F.m_ext.offset == k["m_ext"]


def test_constants_match_the_kernel_header(kernel_layout):
    k = kernel_layout
    assert (rxnfc.ETHTOOL_GRXFH, rxnfc.ETHTOOL_SRXFH, rxnfc.SIOCETHTOOL) == (k["GRXFH"], k["SRXFH"],
                                                                             k["SIOCETHTOOL"])
    assert rxnfc.FLOW_TYPES["tcp4"] == k["TCP_V4_FLOW"]
    assert rxnfc.FLOW_TYPES["udp4"] == k["UDP_V4_FLOW"]
    assert rxnfc.FLOW_TYPES["tcp6"] == k["TCP_V6_FLOW"]
    assert rxnfc.FLOW_TYPES["udp6"] == k["UDP_V6_FLOW"]
    assert rxnfc.FLOW_TYPES["ip4"] == k["IPV4_FLOW"]
    assert rxnfc.FLOW_TYPES["ether"] == k["ETHER_FLOW"]
    bits = dict(rxnfc.HASH_BITS)
    assert (bits["m"], bits["s"], bits["d"], bits["f"], bits["n"]) == (
        k["RXH_L2DA"], k["RXH_IP_SRC"], k["RXH_IP_DST"], k["RXH_L4_B_0_1"], k["RXH_L4_B_2_3"])
    assert rxnfc.RXH_DISCARD == k["RXH_DISCARD"]


def test_ifreq_packing_matches_the_kernel_header(kernel_layout):
    packed = rxnfc.pack_ifreq("veth0", 0x1122334455667788)
    assert len(packed) == kernel_layout["ifreq"]
    off = kernel_layout["ifr_data"]
    assert packed[:off] == b"veth0".ljust(off, b"\0")
    assert struct.unpack_from("P", packed, off)[0] == 0x1122334455667788


def test_packed_bytes_hold_cmd_flow_and_hash():
    nfc = rxnfc.RxNfc(cmd=rxnfc.ETHTOOL_SRXFH, flow_type=rxnfc.flow_type("udp4"),
                      data=rxnfc.letters_to_hash("sdfn"))
    raw = bytes(nfc)
    assert struct.unpack_from("=IIQ", raw, 0) == (0x2a, 0x02, (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7))
    assert raw[16:] == b"\0" * (len(raw) - 16)


def test_long_interface_name_is_refused():
    with pytest.raises(ValueError):
        rxnfc.pack_ifreq("a" * 16, 0)


@given(st.sets(st.sampled_from([k for k, _ in rxnfc.HASH_BITS]), min_size=1))
def test_letters_round_trip_in_ethtool_order(letters):
    text = "".join(sorted(letters))
    out = rxnfc.hash_to_letters(rxnfc.letters_to_hash(text))
    assert set(out) == letters
    order = [k for k, _ in rxnfc.HASH_BITS]
    assert [order.index(c) for c in out] == sorted(order.index(c) for c in out)


def test_discard_and_bad_letters():
    assert rxnfc.canonical("r") == "r"
    assert rxnfc.canonical("ds") == "sd"
    with pytest.raises(ValueError, match="unknown hash field 'x'"):
        rxnfc.letters_to_hash("sdx")
    with pytest.raises(ValueError, match="unknown flow type"):
        rxnfc.flow_type("udp5")
