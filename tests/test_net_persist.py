"""The pure editors that keep NIC settings at boot: NetworkManager keyfiles,
ifcfg files with ETHTOOL_OPTS, and systemd .link files."""
import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from numatune.families.network import netconf

NM = """[connection]
id=eth1
uuid=8b4f0f0c-6c56-4a59-9bd5-6f5d3e0a8e01
type=ethernet
interface-name=eth1

[ethernet]
mtu=1500
# a comment NetworkManager keeps

[ipv4]
method=manual
address1=192.168.10.5/24
"""


def test_nm_edit_changes_keys_in_place_and_adds_sections():
    settings, missing = netconf.nm_wanted({"mtu": {"mtu": 9000}, "coalesce": {"rx-usecs": 0, "adaptive-rx": 1},
                                           "ring": {"rx": 4096}, "channels": {"combined": 8},
                                           "rx_flow_hash": {"udp4": "sdfn"}})
    assert missing == [("rx_flow_hash", "udp4")]
    new = netconf.nm_edit(NM, settings)
    parsed = netconf.ini_get(new)
    assert parsed["ethernet"]["mtu"] == "9000"
    assert parsed["ethtool"] == {"coalesce-rx-usecs": "0", "coalesce-adaptive-rx": "1", "ring-rx": "4096",
                                 "channels-combined": "8"}
    assert parsed["ipv4"] == netconf.ini_get(NM)["ipv4"]
    assert "# a comment NetworkManager keeps" in new and new.count("mtu=") == 1
    assert netconf.nm_has(new, settings) and not netconf.nm_has(NM, settings)


def test_nm_infiniband_mtu_goes_to_its_own_section():
    settings, _ = netconf.nm_wanted({"mtu": {"mtu": 4092}}, link_type=32)
    assert settings == {"infiniband": {"mtu": "4092"}}


def test_ifcfg_merges_ethtool_opts_and_keeps_the_rest():
    text = 'DEVICE=eth0\nONBOOT=yes\nETHTOOL_OPTS="-K eth0 gro off; -C eth0 tx-usecs 50 rx-usecs 8"\n'
    want = {"mtu": {"mtu": 9000}, "coalesce": {"rx-usecs": 0}, "ring": {"rx": 4096},
            "rx_flow_hash": {"udp4": "sdfn"}}
    new = netconf.ifcfg_edit(text, "eth0", want)
    values = netconf.ifcfg_get(new)
    assert values["MTU"] == "9000" and values["ONBOOT"] == "yes"
    commands = netconf.parse_ethtool_opts(values["ETHTOOL_OPTS"])
    assert ("-K", "eth0", ["gro", "off"]) in commands
    assert ("-C", "eth0", ["rx-usecs", "0", "tx-usecs", "50"]) in commands
    assert ("-G", "eth0", ["rx", "4096"]) in commands
    assert ("-N", "eth0", ["rx-flow-hash", "udp4", "sdfn"]) in commands
    assert netconf.ifcfg_has(new, want, "eth0") and not netconf.ifcfg_has(text, want, "eth0")
    # Editing again changes nothing: apply converges.
    assert netconf.ifcfg_get(netconf.ifcfg_edit(new, "eth0", want)) == values


def test_ifcfg_replaces_only_the_same_flow():
    text = 'ETHTOOL_OPTS="-N eth0 rx-flow-hash tcp4 sdfn; -N eth0 rx-flow-hash udp4 sd"\n'
    new = netconf.ifcfg_edit(text, "eth0", {"rx_flow_hash": {"udp4": "sdfn"}})
    commands = netconf.parse_ethtool_opts(netconf.ifcfg_get(new)["ETHTOOL_OPTS"])
    assert commands == [("-N", "eth0", ["rx-flow-hash", "tcp4", "sdfn"]),
                        ("-N", "eth0", ["rx-flow-hash", "udp4", "sdfn"])]


def test_link_file_keeps_default_naming_and_says_what_it_cannot_hold():
    keys, missing = netconf.link_wanted({"mtu": {"mtu": 9000}, "coalesce": {"rx-usecs": 0, "pkt-rate-low": 5},
                                         "channels": {"combined": 8}, "ring": {"rx": 4096}})
    assert missing == [("coalesce", "pkt-rate-low")]
    text = netconf.link_file(None, "eth2", "78:2b:cb:38:ac:1f", keys)
    parsed = netconf.ini_get(text)
    assert parsed["Match"] == {"MACAddress": "78:2b:cb:38:ac:1f"}
    assert parsed["Link"]["MTUBytes"] == "9000" and parsed["Link"]["RxCoalesceSec"] == "0us"
    assert parsed["Link"]["CombinedChannels"] == "8" and parsed["Link"]["RxBufferSize"] == "4096"
    assert parsed["Link"]["NamePolicy"].startswith("keep kernel")
    assert netconf.ini_get(netconf.link_file(None, "eth2", None, keys))["Match"] == {"OriginalName": "eth2"}


def test_bonding_opts_merge():
    text = 'DEVICE=bond0\nBONDING_OPTS="mode=1 miimon=100"\n'
    new = netconf.bonding_opts_edit(text, {"mode": "802.3ad", "xmit_hash_policy": "layer3+4"})
    assert netconf.bonding_opts(new) == {"mode": "802.3ad", "miimon": "100", "xmit_hash_policy": "layer3+4"}
    assert netconf.bonding_opts_has(new, {"mode": "802.3ad"}) and not netconf.bonding_opts_has(text, {"mode": "4"})
    assert netconf.ifcfg_get(new)["DEVICE"] == "bond0"


_SHELL_BITS = ['"', "'", "\\", "#", " ", "\t", "a", "-C", "eth0", "$", "`", ";", "x y", "="]


@given(st.lists(st.sampled_from(_SHELL_BITS), max_size=10).map("".join), st.sampled_from(["", '"', "'"]),
       st.sampled_from(["", " ", "\t", " #c", "x"]))
def test_an_ifcfg_value_reads_as_shlex_splits_it(value, quote, tail):
    """ifcfg_get's fast paths (no quotes at all; a value quoted whole) give what shlex.split gives (#38)."""
    if quote:
        value = quote + value.replace(quote, "") + quote + tail
    try:
        want = " ".join(shlex.split(value, comments=True))
    except ValueError:
        want = value
    assert netconf.ifcfg_get("K=%s\n" % value)["K"] == want


def test_a_value_quoted_whole_is_read_without_shlex(monkeypatch):
    """ETHTOOL_OPTS as written (quoted whole) on each of 256 NICs: shlex cost ~30 us a line (#38)."""
    monkeypatch.setattr(shlex, "split", lambda *a, **k: pytest.fail("went through shlex"))
    text = "DEVICE=eth0\nETHTOOL_OPTS=\"-C eth0 rx-usecs 0; -G eth0 rx 4096\"\nMTU='9000'\n"
    assert netconf.ifcfg_get(text) == {"DEVICE": "eth0", "ETHTOOL_OPTS": "-C eth0 rx-usecs 0; -G eth0 rx 4096",
                                       "MTU": "9000"}


def _has_by_editing(text, want, ifname):
    """ifcfg_has by its definition: the edit changes no variable's value."""
    now = netconf.ifcfg_get(text)
    return netconf.ifcfg_get(netconf.ifcfg_edit(text, ifname, want)) == now


_IFCFG_BITS = ["MTU=1500", "MTU=9000", "MTU='9000'", "ETHTOOL_OPTS=\"-C eth0 rx-usecs 0\"",
               "ETHTOOL_OPTS='-C eth0 rx-usecs 0; -G eth0 rx 4096'", "ETHTOOL_OPTS=", "  MTU=9000",
               "DEVICE=eth0", "# MTU=9000", "NAME=eth0", "ONBOOT=yes", "", "x", "MTU", "\r", "\u2028"]
_WANTS = [{"mtu": {"mtu": 9000}}, {"coalesce": {"rx-usecs": 0}}, {"ring": {"rx": 4096}},
          {"mtu": {"mtu": 9000}, "coalesce": {"rx-usecs": 0}}, {"rx_flow_hash": {"udp4": "sdfn"}}]


@given(st.lists(st.sampled_from(_IFCFG_BITS), max_size=8).map("\n".join), st.sampled_from(_WANTS))
def test_ifcfg_has_answers_as_editing_the_file(text, want):
    """A variable the file lacks answers "not kept" without the edit and a second parse (#38)."""
    assert netconf.ifcfg_has(text, want, "eth0") == _has_by_editing(text, want, "eth0")


def test_a_file_lacking_a_variable_is_not_edited_to_know_it(monkeypatch):
    monkeypatch.setattr(netconf, "ifcfg_set", lambda *a, **k: pytest.fail("edited the file"))
    assert not netconf.ifcfg_has("DEVICE=eth0\nMTU=1500\n", {"coalesce": {"rx-usecs": 0}}, "eth0")
