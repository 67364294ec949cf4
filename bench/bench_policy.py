"""The policy the benchmark plans: the shipped default plus one section per
area, each included only when the knob family that reads it is registered
(the storage, network, CPU and Oracle families land at different times).
"""
import os

BASE = """[policy]
name = "bench-giant-host"
description = "numatune benchmark: every area that exists, on a synthetic 16-socket host"
extends = ["oracle-numa"]

[hugepages]
size = "2M"
count = 126000
placement = "even"
why = "the four SGAs (two 64 GiB, two from 96 GiB memory_target) in 2 MiB pages, plus a margin"

[sysctl]
"vm.swappiness" = 10
"kernel.shmmax" = 4398046511104
"net.core.rmem_max" = 4194304
"net.core.wmem_max" = 4194304
"""

# (area, the top-level policy key its family declares, the section)
SECTIONS = [
    ("storage", "block", """
[[block]]
match = { vendor = "3PARdata", model = "VV" }
scheduler = "deadline"
nr_requests = 512
max_sectors_kb = 512
rotational = 0
nomerges = 1
read_ahead_kb = 128
queue_depth = 128
why = "3PAR LUNs: the storage settings of the Superdome X paper"
"""),
    ("network", "net", """
[[net]]
match = { driver = "i40e" }
coalesce = { rx-usecs = 0 }
irq_affinity = "local-node"
why = "serve each NIC's interrupts on its own NUMA node"
"""),
    ("cpu", "cpu", """
[cpu]
governor = "performance"
max_cstate = 1
"""),
    ("cpu", "cpuset", """
[[cpuset]]
name = "oracle"
nodes = [0]
memory_migrate = false
owner = { uid = "oracle", gid = "dba" }
"""),
    ("oracle", "oracle", """
[[oracle.instance]]
sid = "*"

[oracle.instance.parameters]
_enable_NUMA_support = true
use_large_pages = "ONLY"
memory_target = 0
"""),
]

BLOCK_ONLY = SECTIONS[0][2]


def declared_keys():
    from numatune.families.registry import FAMILIES
    keys = set()
    for family in FAMILIES:
        keys.update(family.policy)
    return keys


def validates(text, path):
    """None if ``text`` loads as a policy, else the one-line error."""
    from numatune.errors import NumatuneError
    from numatune.policy.stack import load
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    try:
        load([path], cwd=os.path.dirname(path))
    except NumatuneError as e:
        return str(e)
    return None


def build(path, drop=()):
    """Write the richest policy that loads to ``path``: (areas in it, [(area, why skipped)])."""
    keys = declared_keys()
    included, skipped = [], []
    for area, key, text in SECTIONS:
        if key not in keys:
            skipped.append((area, "no family declares [%s] yet" % key))
        elif (area, key) in drop:
            skipped.append((area, "[%s] dropped: the plan failed with it" % key))
        else:
            error = validates(BASE + text, path)
            if error:
                skipped.append((area, "[%s] does not load: %s" % (key, error)))
            else:
                included.append((area, key, text))
    text = BASE + "".join(t for _, _, t in included)
    error = validates(text, path)
    if error:
        raise SystemExit("bench: the combined policy does not load: %s" % error)
    return [(a, k) for a, k, _ in included], skipped


def build_block_only(path):
    """The storage benchmark's policy (#3): only [[block]]; None without a block family."""
    if "block" not in declared_keys() or validates(BLOCK_ONLY, path):
        return None
    return path
