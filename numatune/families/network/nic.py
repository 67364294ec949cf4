"""A NIC's live settings: MTU through rtnetlink (pyroute2 ``IPRoute``),
channels, coalescing and rings through pyroute2's ``Ethtool``, the RSS hash
through :mod:`numatune.families.network.rxnfc`. Only for the live root: pyroute2 and rxnfc (ctypes,
socket) are imported inside the functions, so the core and a plan under --root never load them.

Settings use ethtool's own names (``rx-usecs``, ``combined``, ``rx``), the
names a policy and the snapshot file use; ``None`` for a whole group means the
driver does not support it.
"""
# ethtool -C names -> struct ethtool_coalesce fields (pyroute2's ioctl names).
COALESCE = {
    "rx-usecs": "rx_coalesce_usecs", "rx-frames": "rx_max_coalesced_frames",
    "rx-usecs-irq": "rx_coalesce_usecs_irq", "rx-frames-irq": "rx_max_coalesced_frames_irq",
    "tx-usecs": "tx_coalesce_usecs", "tx-frames": "tx_max_coalesced_frames",
    "tx-usecs-irq": "tx_coalesce_usecs_irq", "tx-frames-irq": "tx_max_coalesced_frames_irq",
    "stats-block-usecs": "stats_block_coalesce_usecs",
    "adaptive-rx": "use_adaptive_rx_coalesce", "adaptive-tx": "use_adaptive_tx_coalesce",
    "pkt-rate-low": "pkt_rate_low", "rx-usecs-low": "rx_coalesce_usecs_low",
    "rx-frames-low": "rx_max_coalesced_frames_low", "tx-usecs-low": "tx_coalesce_usecs_low",
    "tx-frames-low": "tx_max_coalesced_frames_low", "pkt-rate-high": "pkt_rate_high",
    "rx-usecs-high": "rx_coalesce_usecs_high", "rx-frames-high": "rx_max_coalesced_frames_high",
    "tx-usecs-high": "tx_coalesce_usecs_high", "tx-frames-high": "tx_max_coalesced_frames_high",
    "sample-interval": "rate_sample_interval",
}
# ethtool -L names -> struct ethtool_channels fields.
CHANNELS = {"rx": "rx_count", "tx": "tx_count", "other": "other_count", "combined": "combined_count"}
# ethtool -G names -> struct ethtool_ringparam fields.
RING = {"rx": "rx", "rx-mini": "rx_mini", "rx-jumbo": "rx_jumbo", "tx": "tx"}
RING_MAX = {"rx": "rx_max", "rx-mini": "rx_mini_max", "rx-jumbo": "rx_jumbo_max", "tx": "tx_max"}
FLOWS = ("tcp4", "udp4", "tcp6", "udp6")
GROUPS = ("channels", "coalesce", "ring", "rx_flow_hash")


def _unsupported_errors():
    # EthtoolError covers NotSupportedError and NoSuchDevice (a link gone
    # while we read); either way there is nothing to plan for it.
    from pyroute2.ethtool.ioctl import EthtoolError
    from numatune.families.network import rxnfc
    return (EthtoolError, rxnfc.Unsupported)


def _ethtool():
    from pyroute2 import Ethtool
    return Ethtool()


def get_mtu(ifname):
    from pyroute2 import IPRoute
    with IPRoute() as ipr:
        return int(ipr.link("get", ifname=ifname)[0].get_attr("IFLA_MTU"))


def set_mtu(ifname, mtu):
    from pyroute2 import IPRoute
    with IPRoute() as ipr:
        index = ipr.link_lookup(ifname=ifname)
        if not index:
            raise OSError(19, "no such interface %s" % ifname)
        ipr.link("set", index=index[0], mtu=int(mtu))


def link_kind(ifname):
    """rtnetlink's kind of a virtual link ("veth", "bond", "ifb"), or None."""
    from pyroute2 import IPRoute
    with IPRoute() as ipr:
        links = ipr.link("get", ifname=ifname)
        info = links[0].get_attr("IFLA_LINKINFO") if links else None
        return info.get_attr("IFLA_INFO_KIND") if info is not None else None


def read_group(eth, ifname, group, flows=FLOWS):
    """One group's current values, or None when the driver lacks it."""
    try:
        if group == "channels":
            ch = eth.get_channels(ifname)
            return {"current": {k: getattr(ch, f) for k, f in CHANNELS.items()},
                    "max": {k: getattr(ch, "max_" + k) for k in CHANNELS}}
        if group == "coalesce":
            values = eth.get_coalesce(ifname)
            return {"current": {k: int(values[f]) for k, f in COALESCE.items()}}
        if group == "ring":
            rings = eth.get_rings(ifname)
            return {"current": {k: getattr(rings, f) for k, f in RING.items() if getattr(rings, f) is not None},
                    "max": {k: getattr(rings, f) for k, f in RING_MAX.items() if getattr(rings, f) is not None}}
        if group == "rx_flow_hash":
            # Drivers hash some flow types and refuse others (EINVAL).
            from numatune.families.network import rxnfc
            current = {}
            for flow in flows:
                try:
                    current[flow] = rxnfc.get_hash(ifname, flow)
                except rxnfc.Unsupported:
                    current[flow] = None
            return {"current": current} if any(v is not None for v in current.values()) else None
    except _unsupported_errors():
        return None
    raise ValueError("unknown ethtool group %r" % group)


def read(ifname, flows=FLOWS):
    """{group: {"current": {...}, "max": {...}} or None} for one interface."""
    eth = _ethtool()
    try:
        return {group: read_group(eth, ifname, group, flows) for group in GROUPS}
    finally:
        eth.close()


def write(ifname, group, values):
    """Set ``values`` ({ethtool name: value}) of one group; others untouched."""
    if group == "mtu":
        return set_mtu(ifname, values["mtu"])
    if group == "rx_flow_hash":
        from numatune.families.network import rxnfc
        for flow, letters in values.items():
            rxnfc.set_hash(ifname, flow, letters)
        return None
    eth = _ethtool()
    try:
        if group == "channels":
            eth.set_channels(ifname, {CHANNELS[k]: int(v) for k, v in values.items()})
        elif group == "coalesce":
            eth.set_coalesce(ifname, {COALESCE[k]: int(v) for k, v in values.items()})
        elif group == "ring":
            # Through the ioctl: it changes only the fields given.
            eth.set_rings(ifname, with_netlink=False, **{RING[k]: int(v) for k, v in values.items()})
        else:
            raise ValueError("unknown ethtool group %r" % group)
    finally:
        eth.close()
    return None


def current(ifname, group, keys):
    """The live values of ``keys`` in ``group`` (for verify and revert)."""
    if group == "mtu":
        return {"mtu": get_mtu(ifname)}
    eth = _ethtool()
    try:
        got = read_group(eth, ifname, group, flows=keys if group == "rx_flow_hash" else FLOWS)
    finally:
        eth.close()
    if got is None:
        return None
    return {k: got["current"].get(k) for k in keys}
