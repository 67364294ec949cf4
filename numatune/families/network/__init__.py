"""NICs: MTU, ethtool channels/coalescing/rings, RSS flow hashing, bonds,
IRQ affinity, kept in NetworkManager keyfiles, ifcfg files or .link files."""
from numatune.family import Family, Snapshot, WriteKinds
from numatune.families.network import facts, knob

# Every interface's MTU, node and driver (the cheap facts; no ethtool groups).
SURVEY = {"net": [{"match": {"name": "*"}, "mtu": 9000, "coalesce": {"rx-usecs": 0}}]}


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.network import facts_text
    return facts_text.facts_lines(facts)


def _ethtool_set(text, ifname, group, values):
    # netdev.EDITORS's one editor; its module (the netdev write kind) is loaded only by what edits.
    from numatune.families.network import netdev
    return netdev.ethtool_set(text, ifname, group, values)


def _reread(root, data, planned, ops):
    # Imported after apply's writes only (verify): a plan never rereads.
    from numatune.families.network import reread
    return reread.reread(root, data, planned, ops)


def _as_policy(facts):
    # Imported for `facts --format policy` only.
    from numatune.families.network import as_policy
    return as_policy.as_policy(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.network import recommend
    return recommend.recommend(facts)


FAMILY = Family(
    name=knob.NAME, areas=("network",), policy=knob.POLICY, read=knob.read, diff=knob.diff,
    check_policy=knob.check_policy, editors=dict(knob.EDITORS, net_ethtool=_ethtool_set),
    write_kinds=WriteKinds({"netdev": "numatune.families.network.netdev"}),
    facts_lines=_facts_lines,
    snapshot=Snapshot(patterns=(
        ("/proc/net", r"^route$", False),
        ("/etc/sysconfig/network-scripts", r"^ifcfg-", False),
        ("/etc/NetworkManager/system-connections", r"\.nmconnection$", False),
        ("/etc/systemd/network", r"\.(link|network)$", False),
        # systemd 209+ (.link files are read): its default .link file (families/network/era.py).
        ("/usr/lib/systemd/network", r"^99-default\.link$", False),
        ("/lib/systemd/network", r"^99-default\.link$", False),
    ), live=facts.snapshot_extra, sh_live=facts.SH_LIVE),
    recommend=_recommend, survey=SURVEY, as_policy=_as_policy, reread=_reread,
)
