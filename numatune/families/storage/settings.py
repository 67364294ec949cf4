"""The [[block]] settings' vocabulary, shared by the live diff (``knob``)
and what keeps it after a reboot (``persist``)."""

SCHEDULERS = ("deadline", "mq-deadline", "none", "noop", "cfq", "bfq", "kyber")
# Policy name -> what a device may call it, best first: blk-mq kernels renamed
# deadline to mq-deadline and noop to none; bfq took over from cfq.
SCHEDULER_NAMES = {"deadline": ["mq-deadline", "deadline"], "mq-deadline": ["mq-deadline", "deadline"],
                   "none": ["none", "noop"], "noop": ["none", "noop"], "cfq": ["cfq", "bfq"], "bfq": ["bfq"],
                   "kyber": ["kyber"]}
CACHE_TYPES = ("write through", "write back", "none")
# Write order on one device: the scheduler first (switching it resets nr_requests).
ATTRS = ("scheduler", "nr_requests", "max_sectors_kb", "read_ahead_kb", "rotational", "nomerges", "rq_affinity",
         "queue_depth", "cache_type")
SCSI_ATTRS = ("queue_depth", "cache_type")


def settings_of(rule):
    """{attr: value as sysfs spells it}, in write order."""
    out = {}
    for attr in ATTRS:
        if attr in rule:
            value = rule[attr]
            out[attr] = str(int(value)) if isinstance(value, bool) else str(value)
    return out
