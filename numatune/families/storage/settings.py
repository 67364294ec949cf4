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
# The attributes a rule may give as a floor, ``{ at_least = N }`` (tuned's ``>N``): a host value already
# higher is kept, as [sysctl] at_least keeps a larger size. nr_requests: a deeper queue only lets more
# requests wait in the scheduler (blk-mq kernels give fast devices more than 1024 by default: an NVMe's
# 2 x its tags); read_ahead_kb: tuned's throughput profiles give it as ">4096" for the same reason. Not
# max_sectors_kb or queue_depth: arrays' guides give those as ceilings (a request size the array splits
# well, what a target port can queue across all hosts before QUEUE FULL), so a higher host value is
# the one to lower, and they stay exact.
FLOOR_ATTRS = ("nr_requests", "read_ahead_kb")
# How a floor travels inside the family (settings_of's values, the udev rules' parsed form).
FLOOR = ">="


def floor_of(value):
    """The N of a floor value (">=N"), or None for an exact value."""
    return int(value[len(FLOOR):]) if isinstance(value, str) and value.startswith(FLOOR) else None


def settings_of(rule):
    """{attr: value as sysfs spells it, or ">=N" for an at_least floor}, in write order."""
    out = {}
    for attr in ATTRS:
        if attr in rule:
            value = rule[attr]
            if isinstance(value, dict):
                if "at_least" in value:  # an empty table is the policy check's error
                    out[attr] = "%s%d" % (FLOOR, value["at_least"])
            else:
                out[attr] = str(int(value)) if isinstance(value, bool) else str(value)
    return out
