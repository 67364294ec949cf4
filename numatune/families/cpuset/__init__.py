"""Cpusets bound to NUMA nodes (cgroup v1 anywhere it is mounted, v2 slices),
persisted in cgconfig or systemd slices."""
from numatune.family import Family, Snapshot, WriteKinds
from numatune.families.cpuset import knob


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.cpuset import facts_text
    return facts_text.facts_lines(facts)


def _as_policy(facts):
    # Imported for `facts --format policy` only.
    from numatune.families.cpuset import as_policy
    return as_policy.as_policy(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.cpuset import recommend
    return recommend.recommend(facts)


FAMILY = Family(
    name=knob.NAME, areas=("cpu",), policy=knob.POLICY, read=knob.read, diff=knob.diff,
    check_policy=knob.check_policy, editors=knob.EDITORS,
    write_kinds=WriteKinds({"cgroup": "numatune.families.cpuset.cgroup_write"}),
    facts_lines=_facts_lines,
    snapshot=Snapshot(patterns=(
        # v1 wherever it is mounted (RHEL 6: /cgroup/cpuset), v2 slices; libcgroup and slice files.
        ("/sys/fs/cgroup/cpuset", r".*", True),
        ("/cgroup/cpuset", r".*", True),
        ("/sys/fs/cgroup", r"^(cgroup\.(controllers|subtree_control|procs)|cpuset\..*|.*\.slice)$", True),
        ("/etc", r"^cgconfig\.conf$", False),
        ("/etc/cgconfig.d", r"\.conf$", False),
        ("/etc/systemd/system", r"\.slice$", False),
        ("/etc/systemd/system/slices.target.d", r"^numatune-.*\.conf$", False),
    ), keep=(r"cpuset\.[a-z_.]+", r"tasks", r"cgroup\.(procs|controllers|subtree_control)")),
    recommend=_recommend, as_policy=_as_policy,
)
