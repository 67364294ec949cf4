"""Kernel parameters: live in /proc/sys, persisted in numatune's sysctl.d
file, with the load order of systemd-sysctl (later files win)."""
from numatune.family import Family, Snapshot
from numatune.families.sysctl import knob
from numatune.families.sysctl.rivals import rivals

# Read whatever the policy: recommend compares the host's value with the source's.
SURVEY = {"sysctl": {"kernel.numa_balancing": {"value": 0}, "net.core.rmem_max": {"value": 0},
                     "net.core.wmem_max": {"value": 0}, "net.ipv4.tcp_rmem": {"value": "0 0 0"},
                     "net.ipv4.tcp_wmem": {"value": "0 0 0"}}}


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.sysctl import facts_text
    return facts_text.facts_lines(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.sysctl import recommend
    return recommend.recommend(facts)


def _as_policy(facts):
    from numatune.families.sysctl import as_policy
    return as_policy.as_policy(facts)


FAMILY = Family(
    name=knob.NAME, areas=("kernel", "memory", "network"), policy=knob.POLICY, read=knob.read, diff=knob.diff,
    check_policy=knob.check_policy, check_host=knob.check_host, editors=knob.EDITORS, rivals=rivals, facts_lines=_facts_lines,
    snapshot=Snapshot(patterns=(
        ("/proc/sys/kernel", r"^(osrelease|hostname|numa_balancing|sched_.*|shm.*|sem)$", False),
        ("/proc/sys/vm", r".*", False),
        ("/proc/sys/net/core", r"^(rmem_.*|wmem_.*|netdev_max_backlog|somaxconn)$", False),
        ("/proc/sys/net/ipv4", r"^(tcp_rmem|tcp_wmem|ip_local_port_range|ipfrag_high_thresh|ipfrag_low_thresh)$",
         False),
        ("/etc", r"^sysctl\.conf$", False),
        ("/etc/sysctl.d", r"\.conf$", False),
        ("/run/sysctl.d", r"\.conf$", False),
        ("/usr/lib/sysctl.d", r"\.conf$", False),
    )),
    recommend=_recommend, survey=SURVEY, as_policy=_as_policy,
)
