"""Block queues and SCSI devices (scheduler, nr_requests, read-ahead,
queue_depth, cache type), multipath maps over their paths, kept by udev
rules and multipath.conf."""
from numatune.family import Family, Snapshot, WriteKinds
from numatune.families.storage import facts_snapshot, knob

# Read every device's queue settings, whatever the policy names: the rule
# recommend writes keeps a value the host already has higher.
SURVEY = {"block": [{"match": {"name": "*"}, "scheduler": "deadline", "nr_requests": 1024, "rotational": 0,
                     "nomerges": 0, "queue_depth": 32}]}


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.storage import facts_text
    return facts_text.facts_lines(facts)


def _reread(root, data, planned, ops):
    # Imported after apply's writes only (verify): a plan never rereads.
    from numatune.families.storage import reread
    return reread.reread(root, data, planned, ops)


def _as_policy(facts):
    # Imported for `facts --format policy` only.
    from numatune.families.storage import as_policy
    return as_policy.as_policy(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.storage import recommend
    return recommend.recommend(facts)


FAMILY = Family(
    name=knob.NAME, areas=("storage",), policy=knob.POLICY, read=knob.read, read_whole=knob.read_whole, diff=knob.diff,
    check_policy=knob.check_policy, editors=knob.EDITORS,
    write_kinds=WriteKinds({"blockattr": "numatune.families.storage.blockattr",
                            "multipath": "numatune.families.storage.multipath_write"}),
    facts_lines=_facts_lines,
    snapshot=Snapshot(patterns=(
        # The udev database (ID_*, DM_* properties), numatune's rules and
        # multipath.conf; the sysfs side is facts_snapshot.snapshot_live.
        ("/run/udev/data", r"^b[0-9]+:[0-9]+$", False),
        ("/etc/udev/rules.d", r"^90-numatune\.rules$", False),
        ("/etc", r"^multipath\.conf$", False),
        # Its mtime is when multipathd started: was multipath.conf read since?
        ("/run", r"^multipathd\.pid$", False),
    ), live=facts_snapshot.snapshot_live, sh_live=facts_snapshot.SH_LIVE),
    recommend=_recommend, survey=SURVEY, as_policy=_as_policy, reread=_reread,
)
