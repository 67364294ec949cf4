"""HugePages for the SGAs, from the configuration (so it works before the
instances start), in the spirit of MOS 401749.1's script.

For each instance:
  sga     = max(sga_max_size, sga_target), or the sum of the pools when both
            are 0; an instance on AMM (memory_target > 0) gets no pages.
  granule = Oracle's granule for that SGA size (MOS 947152.1):
            <=1G 4M, <=8G 16M, <=16G 32M, <=32G 64M, <=64G 128M, <=128G 256M, else 512M
  bytes   = sga rounded up to the granule, plus one granule (fixed SGA and
            redo buffers live beside the components)
  pages   = ceil(bytes / page size)
pool = sum(pages) + ceil(sum(pages) * margin_pct / 100) + the pages something
else holds (in use, less what the instances themselves hold while they run),
never below the pages already in use. Pure arithmetic; tested against hand calculations.

Oracle's own figure is larger: its large-pages report (the alert log's
EXPECTED_PAGES) counts the shared areas it keeps beside the SGA for its
processes as well, and no parameter or note gives their size. So where the
report exists, those areas are taken from it:
  areas   = expected pages * page size - the SGA of that startup, rounded to
            its granules (never below 0)
  oracle  = ceil((SGA after the plan, rounded to its granules + areas) / page)
The assumption, said in the plan: the areas stay as Oracle counted them, and
grow in proportion when the plan raises ``processes`` (never shrink with it).
With nothing changed, ``oracle`` is the report's own figure. An instance
needs the larger of the two figures.

Without a report (no alert log, or one that never logged it), the shared
areas are estimated from the one instance the papers measured: the E7
paper's 30 GiB SGA (db_cache_size 20g + shared_pool_size 10g, no
sga_target) took 39302 - 23557 = 15745 pages of 2 MiB on its node, 770 MiB
beside the SGA (000_bee41b021388c063.txt). So:
  estimate = ceil((SGA in granules + max(one granule, SGA in granules * 770 / 30720)) / page)
which is never below the parameters' figure, and says so in the plan.
"""
from numatune.families.oracle import values

MB = 1 << 20
GB = 1 << 30
GRANULES = [(1 * GB, 4 * MB), (8 * GB, 16 * MB), (16 * GB, 32 * MB), (32 * GB, 64 * MB),
            (64 * GB, 128 * MB), (128 * GB, 256 * MB)]
POOLS = ("db_cache_size", "shared_pool_size", "large_pool_size", "java_pool_size", "streams_pool_size",
         "log_buffer", "db_keep_cache_size", "db_recycle_cache_size", "db_2k_cache_size", "db_4k_cache_size",
         "db_8k_cache_size", "db_16k_cache_size", "db_32k_cache_size", "inmemory_size")
DEFAULT_MARGIN_PCT = 2
# When AMM is switched off and the policy gives no split: Oracle's own
# startup rule for an AMM instance without targets (60% SGA, 40% PGA).
AMM_SGA_SHARE = 60


def _b(params, name):
    return values.to_bytes(params.get(name)) or 0


def sga_bytes(params):
    """(bytes, source) of an instance's SGA from its parameters (raw text)."""
    # memory_max_target alone keeps the instance on AMM's /dev/shm too.
    if _b(params, "memory_target") > 0 or _b(params, "memory_max_target") > 0:
        return 0, "amm"
    mx, target = _b(params, "sga_max_size"), _b(params, "sga_target")
    if mx or target:
        return max(mx, target), "sga_max_size" if mx >= target else "sga_target"
    pools = sum(_b(params, p) for p in POOLS)
    return (pools, "pools") if pools else (0, "unknown")


def granule(sga):
    for limit, size in GRANULES:
        if sga <= limit:
            return size
    return 512 * MB


def instance_pages(sga, page_kb):
    if sga <= 0:
        return 0
    g = granule(sga)
    rounded = -(-sga // g) * g + g
    page = page_kb * 1024
    return -(-rounded // page)


def rounded(sga):
    """The SGA rounded up to whole granules."""
    g = granule(sga)
    return -(-sga // g) * g


def shared_areas(expected_pages, page_kb, sga_then):
    """Bytes Oracle's report counted beside the granule-rounded SGA of that
    startup (its processes' shared areas, fixed SGA and redo beside it)."""
    return max(expected_pages * page_kb * 1024 - rounded(sga_then), 0)


def oracle_pages(sga_after, areas, page_kb, processes_then=None, processes_after=None):
    """Oracle's figure for ``sga_after``: its granules plus ``areas``, scaled
    up when ``processes`` grows."""
    if processes_then and processes_after and processes_after > processes_then:
        areas = -(-areas * processes_after // processes_then)
    page = page_kb * 1024
    return -(-(rounded(sga_after) + areas) // page)


# The E7 paper's instance (000_bee41b021388c063.txt): 770 MiB of shared
# areas beside its 30720 MiB SGA (15745 pages of 2 MiB in all).
MEASURED_AREAS_MB, MEASURED_SGA_MB = 770, 30720


def estimated_areas(sga):
    """Bytes of shared areas beside an SGA when no alert log reports them:
    the paper's proportion, never below one granule."""
    whole = rounded(sga)
    return max(granule(sga), -(-whole * MEASURED_AREAS_MB // MEASURED_SGA_MB))


def estimated_pages(sga, page_kb):
    """Pages for the SGA and its estimated shared areas (0 for no SGA)."""
    if sga <= 0:
        return 0
    page = page_kb * 1024
    return -(-(rounded(sga) + estimated_areas(sga)) // page)


def pool_pages(per_instance, margin_pct=DEFAULT_MARGIN_PCT, in_use=0, others=0):
    total = sum(per_instance)
    return max(total + -(-total * margin_pct // 100) + others, in_use)


def amm_split(memory_target):
    """(sga_target, pga_aggregate_target) from an AMM memory_target, in whole MB."""
    sga = memory_target * AMM_SGA_SHARE // 100 // MB * MB
    return sga, memory_target // MB * MB - sga


def place(instances, node_ids, total, others=None, floor=None):
    """{node: pages}: a bound instance's pages spread over its cpuset's nodes,
    the rest (unbound instances and the margin) evenly over ``node_ids``;
    plus, on each node, the pages something else holds there (``others``:
    they are not free for an instance, so they add to its need rather than
    set a floor); never below ``floor`` (a node's pages in use: the kernel
    cannot shrink a pool below them). ``instances``: [(pages, [nodes] or None)]."""
    ids = sorted(node_ids, key=int)
    out = {nid: 0 for nid in ids}
    if not ids:
        return out
    rest = total
    for pages, nodes in instances:
        nodes = [n for n in (nodes or []) if n in out]
        if not nodes or not pages:
            continue
        share, extra = divmod(pages, len(nodes))
        for i, nid in enumerate(sorted(nodes, key=int)):
            out[nid] += share + (1 if i < extra else 0)
        rest -= pages
    share, extra = divmod(max(rest, 0), len(ids))
    for i, nid in enumerate(ids):
        out[nid] += share + (1 if i < extra else 0)
    for nid, pages in (others or {}).items():
        if nid in out:
            out[nid] += pages
    for nid, used in (floor or {}).items():
        if nid in out and out[nid] < used:
            out[nid] = used
    return out
