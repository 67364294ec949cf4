"""HugePages for the SGAs against hand calculations (see the rule in
numatune/oracle/sizing.py): page = ceil((roundup(sga, granule) + granule) / page),
pool = sum + ceil(sum * margin%), never below the pages in use."""
from numatune.families.oracle import pool, sizing

M = 1 << 20
G = 1 << 30


def pages(params, kb):
    return sizing.instance_pages(sizing.sga_bytes(params)[0], kb)


def test_two_instances_2m_pages():
    # ORCL: sga_target=28941m (the real spfile's); granule 64M (16G < sga <= 32G)
    #   28941M -> 453 x 64M = 28992M, + 64M = 29056M -> 29056 / 2 = 14528 pages
    # DEV: sga_target=4G; granule 16M: 4096M + 16M = 4112M -> 2056 pages
    # pool: 16584 + ceil(16584 * 2 / 100 = 331.68) = 16584 + 332 = 16916
    orcl = {"sga_target": "28941m", "pga_aggregate_target": "9647m"}
    dev = {"sga_target": "4G", "memory_target": "0"}
    assert sizing.sga_bytes(orcl) == (28941 * M, "sga_target")
    assert pages(orcl, 2048) == 14528
    assert pages(dev, 2048) == 2056
    assert sizing.pool_pages([14528, 2056]) == 16916


def test_three_instances_1g_pages_one_on_amm():
    # P1: sga_max_size=100G wins over sga_target=80G; granule 256M (64G < sga <= 128G)
    #   102400M + 256M = 102656M -> 100.25 -> 101 x 1G pages
    # P2: sga_target=48G; granule 128M: 49152M + 128M = 49280M -> 48.125 -> 49 pages
    # P3: memory_target=16G (AMM): cannot use HugePages -> 0
    # pool: 150 + ceil(150 * 2 / 100 = 3) = 153
    p1 = {"sga_max_size": "100G", "sga_target": "80G"}
    p2 = {"sga_target": "48G"}
    p3 = {"memory_target": "16G", "sga_target": "4G"}
    assert sizing.sga_bytes(p1) == (100 * G, "sga_max_size")
    assert sizing.sga_bytes(p3) == (0, "amm")
    got = [pages(p, 1048576) for p in (p1, p2, p3)]
    assert got == [101, 49, 0]
    assert sizing.pool_pages(got) == 153


def test_pools_when_targets_are_zero_and_pages_in_use():
    # A: sga_target=0: pools 2G + 1G + 256M + 64M + 128M (log_buffer) = 3520M;
    #   granule 16M (1G < sga <= 8G): 3520M is whole granules, + 16M = 3536M -> 1768 pages
    # B: sga_target=1G; granule 4M: 1024M + 4M = 1028M -> 514 pages
    # pool: 2282 + ceil(2282 * 5 / 100 = 114.1) = 2397; 2500 in use -> 2500
    a = {"sga_target": "0", "db_cache_size": "2G", "shared_pool_size": "1G", "large_pool_size": "256M",
         "java_pool_size": "64M", "log_buffer": "134217728"}
    b = {"sga_target": "1G"}
    assert sizing.sga_bytes(a) == (3520 * M, "pools")
    assert [pages(a, 2048), pages(b, 2048)] == [1768, 514]
    assert sizing.pool_pages([1768, 514], margin_pct=5) == 2397
    assert sizing.pool_pages([1768, 514], margin_pct=5, in_use=2500) == 2500


def test_amm_split_rule():
    # 60% of memory_target to the SGA, in whole MB; the rest to the PGA.
    assert sizing.amm_split(1 * G) == (614 * M, 410 * M)
    assert sizing.amm_split(40 * G) == (24576 * M, 16384 * M)


def test_placement_follows_binding():
    # Bound ORCL (1000 pages) on node 0; the rest (600 + 32 margin = 632) evenly.
    placed = sizing.place([(1000, ["0"]), (600, None)], ["0", "1"], 1632)
    assert placed == {"0": 1316, "1": 316}
    # A node never drops below its pages in use.
    assert sizing.place([(1000, ["0"]), (600, None)], ["0", "1"], 1632, floor={"1": 400}) == {"0": 1316, "1": 400}
    # Pages others hold on a node add to what is placed there (issue #24: not a floor).
    assert sizing.place([(1000, ["0"]), (600, None)], ["0", "1"], 1632, others={"0": 255}) == {"0": 1571, "1": 316}
    # Bound over two nodes: split between them; odd pages to the lower id.
    assert sizing.place([(7, ["1", "0"])], ["0", "1"], 7) == {"0": 4, "1": 3}


def test_auto_pool_from_facts():
    topo = {"nodes": {"0": {"cpus": [0, 1], "hugepages": {"2048": {"nr": 0, "free": 0}}},
                      "1": {"cpus": [2, 3], "hugepages": {"2048": {"nr": 10, "free": 4}}}},
            "nodes_with_memory": ["0", "1"], "hugepages": {"2048": {"nr": 10, "free": 4}}}
    data = {"hugepages": {"count": "auto"}, "oracle": {"instance": [
        {"sid": "A", "parameters": {"processor_group_name": "oltp"}}, {"sid": "B", "parameters": {}}]}}
    insts = [{"sid": "A", "policy_index": 0, "params": {"sga_target": "1G"}},
             {"sid": "B", "policy_index": 1, "params": {"sga_target": "4G"}}]
    facts = {"topology": topo, "oracle": {"instances": insts, "cpusets": {"oltp": {"cpus": [0, 1], "mems": [0]}}}}
    got = pool.auto_pool(data, facts, 2048)
    # No alert log: each SGA plus its shared areas estimated from 000's instance (770M beside 30720M):
    # A: 1024M + 25.7M = 1049.7M -> 525 pages on node 0; B: 4096M + 102.7M = 4198.7M -> 2100;
    # margin ceil(2625 * 0.02 = 52.5) = 53; rest 2100 + 53 = 2153 -> 1077 and 1076;
    # node 1 has 6 pages in use and neither instance runs: others hold them, so they come on top.
    assert [i["pages"] for i in got["instances"]] == [525, 2100]
    assert got["placement"] == {"0": 525 + 1077, "1": 1076 + 6}
    assert got["count"] == 2684
    assert got["others"] == 6


def test_pages_a_running_instance_holds_are_not_others():
    # B runs and holds 6 pages on node 1 (its numa_maps): the pool needs no room beside them.
    topo = {"nodes": {"0": {"cpus": [0, 1], "hugepages": {"2048": {"nr": 0, "free": 0}}},
                      "1": {"cpus": [2, 3], "hugepages": {"2048": {"nr": 10, "free": 4}}}},
            "nodes_with_memory": ["0", "1"], "hugepages": {"2048": {"nr": 10, "free": 4}}}
    data = {"hugepages": {"count": "auto"}}
    insts = [{"sid": "B", "policy_index": None, "params": {"sga_target": "4G"}, "huge_held": {"2048": {"1": 6}}}]
    facts = {"topology": topo, "oracle": {"instances": insts, "cpusets": {}}}
    assert pool.in_use_by_others(facts, 2048) == (0, {"0": 0, "1": 0})
    got = pool.auto_pool(data, facts, 2048)
    assert got["count"] == 2100 + 42 and got["others"] == 0    # 4G + estimated shared areas, 2% margin
    insts[0]["huge_held"] = {"2048": {"1": 2}}
    assert pool.in_use_by_others(facts, 2048) == (4, {"0": 0, "1": 4})


def test_huge_held_counts_only_huge_mappings_by_page_size():
    from numatune.families.oracle.instance import parse_huge_held
    text = ("00400000 default file=/u01/app/oracle/bin/oracle mapped=9000 N0=9000 kernelpagesize_kB=4\n"
            "60000000 interleave:0-1 file=/SYSV00000000\\040(deleted) huge dirty=2 N0=1 N1=1 kernelpagesize_kB=2048\n"
            "c0000000 bind:0 file=/SYSV6f8a5b21\\040(deleted) huge dirty=300 N0=300 kernelpagesize_kB=2048\n")
    assert parse_huge_held(text) == {"2048": {"0": 301, "1": 1}}


def test_amm_split_from_the_instances_own_figures():
    from numatune.families.oracle import desired
    # The real spfile's perftest.__sga_target / __pga_aggregate_target, rounded up to whole MB.
    own = {"__sga_target": "30400315392", "__pga_aggregate_target": "10133438464"}
    assert desired.split(own, 40 * G) == (28992 * M, 9664 * M)
    # Without them: Oracle's 60/40 of memory_target.
    assert desired.split({}, 40 * G) == sizing.amm_split(40 * G)


def test_memory_max_target_alone_is_still_amm():
    assert sizing.sga_bytes({"memory_target": "0", "memory_max_target": "1020G", "sga_target": "8G"}) == (0, "amm")


def _facts(kb, expected, sga_target):
    inst = {"sid": "BIG", "policy_index": None, "params": {"sga_target": sga_target},
            "evidence": {"large_pages": {str(kb): {"expected": expected}}} if expected else None}
    topo = {"nodes": {"0": {"cpus": [0], "hugepages": {str(kb): {"nr": 0, "free": 0}}}},
            "nodes_with_memory": ["0"], "hugepages": {str(kb): {"nr": 0, "free": 0}}}
    return {"topology": topo, "oracle": {"instances": [inst], "cpusets": {}}}


def test_auto_takes_the_alert_logs_expected_pages_when_larger_1g():
    from numatune.families.oracle import alertlog
    # A 19c report for 1 GiB pages, in Oracle's table format.
    text = ("Starting ORACLE instance (normal) (OS id: 77)\n Supported system pagesize(s):\n"
            "  PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)\n"
            "        4K       Configured              14              14        NONE\n"
            "  1048576K              100             102             100        NONE\n")
    ev = alertlog.parse(text)
    assert ev["large_pages"]["1048576"]["expected"] == 102
    # sga_target 96G: granule 128M (64G < sga <= 128G): 98304M + 128M = 98432M -> 96.125 -> 97 x 1G
    facts = _facts(1048576, ev["large_pages"]["1048576"]["expected"], "96G")
    got = pool.instance_sizes({}, facts, 1048576)[0]
    assert (got["computed"], got["logged"], got["pages"]) == (97, 102, 102)
    assert got["evidence"].startswith("its alert log") and "97" in got["evidence"]
    # pool: 102 + ceil(102 * 2 / 100 = 2.04) = 105
    assert pool.auto_pool({}, facts, 1048576)["count"] == 105


def test_auto_keeps_the_parameters_when_the_alert_log_expects_less_2m():
    # sga_target 30G: granule 64M: 30720M + 64M = 30784M = 15392 x 2M; the log expected 15000.
    facts = _facts(2048, 15000, "30G")
    got = pool.instance_sizes({}, facts, 2048)[0]
    assert (got["computed"], got["pages"], got["evidence"]) == (15392, 15392, "its sga_target")
    # Without any report: the SGA in granules plus shared areas estimated from 000's instance, whose
    # 30G SGA took 15745 pages (770M beside it): 30720M + 770M = 31490M = 15745 x 2M, said in the evidence.
    got = pool.instance_sizes({}, _facts(2048, None, "30G"), 2048)[0]
    assert (got["computed"], got["pages"]) == (15392, 15745)
    assert "770 MiB of shared areas" in got["evidence"] and "000_bee41b021388c063.txt" in got["evidence"]


def test_the_estimate_is_never_below_one_granule():
    # A 64M SGA: 64M x 770 / 30720 = 1.6M of areas, below its 4M granule: the granule stands.
    assert sizing.estimated_areas(64 << 20) == 4 << 20
    assert sizing.estimated_pages(64 << 20, 2048) == sizing.instance_pages(64 << 20, 2048) == 34
    assert sizing.estimated_pages(0, 2048) == 0


# Oracle's own figure (sizing.shared_areas / oracle_pages): its large-pages
# report counts shared areas beside the SGA that no parameter gives; they are
# taken from the report and carried to the SGA after the plan.

REPORT_19C = """2024-03-04T09:12:01.123456+00:00
Starting ORACLE instance (normal) (OS id: 4711)
2024-03-04T09:12:01.150000+00:00
**********************************************************************
Dump of system resources acquired for SHARED GLOBAL AREA (SGA)
 Per process system memlock (soft) limit = UNLIMITED
 Available system pagesizes:
  4K, %(kb)dK
 Supported system pagesize(s):
  PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)
        4K       Configured               9               9        NONE
  %(kb)8dK  %(avail)15d %(expected)15d %(expected)16d        NONE
**********************************************************************
2024-03-04T09:12:01.170000+00:00
Using parameter settings in server-side spfile /u01/app/oracle/product/19.0.0/dbhome_1/dbs/spfilePROD.ora
System parameters with non-default values:
  processes                = %(processes)d
  use_large_pages          = "ONLY"
  sga_max_size             = %(sga)s
  sga_target               = %(sga)s
  pga_aggregate_target     = 8G
"""


def _reported(kb, expected, sga, processes, params, policy=None):
    from numatune.families.oracle import alertlog
    ev = alertlog.parse(REPORT_19C % {"kb": kb, "avail": expected + 100, "expected": expected, "sga": sga,
                                      "processes": processes})
    assert ev["large_pages"][str(kb)]["expected"] == expected
    assert ev["parameters"] == {"processes": str(processes), "sga_max_size": sga, "sga_target": sga}
    inst = {"sid": "PROD", "policy_index": 0 if policy else None, "params": params, "evidence": ev}
    topo = {"nodes": {"0": {"cpus": [0], "hugepages": {str(kb): {"nr": 0, "free": 0}}}},
            "nodes_with_memory": ["0"], "hugepages": {str(kb): {"nr": 0, "free": 0}}}
    data = {"oracle": {"instance": [{"sid": "PROD", "parameters": policy}]}} if policy else {}
    facts = {"topology": topo, "oracle": {"instances": [inst], "cpusets": {}}}
    return pool.instance_sizes(data, facts, kb)[0]


def test_oracles_figure_2m_as_reported_then_carried_to_a_larger_sga_and_more_processes():
    # The report: 15745 x 2M = 31490M for sga_target 30G (granule 64M: 30720M is whole granules):
    #   areas beside the SGA = 31490M - 30720M = 770M. Nothing changed: Oracle's 15745 stands;
    #   the parameters give (30720M + 64M) / 2M = 15392.
    now = {"sga_target": "30G", "sga_max_size": "30G", "processes": "1500"}
    got = _reported(2048, 15745, "30G", 1500, now)
    assert (got["computed"], got["oracle"], got["pages"]) == (15392, 15745, 15745)
    assert got["evidence"].startswith("its alert log's expected pages") and "770 MiB" in got["evidence"]
    assert got["evidence"].endswith("its parameters give 15392")
    # The plan raises the SGA to 40G (granule 128M: 40960M whole): Oracle's figure
    #   (40960M + 770M) / 2M = 20865 against the parameters' (40960M + 128M) / 2M = 20544.
    got = _reported(2048, 15745, "30G", 1500, now, policy={"sga_target": "40G", "sga_max_size": "40G"})
    assert (got["computed"], got["oracle"], got["pages"]) == (20544, 20865, 20865)
    assert "carried to the SGA after the plan" in got["evidence"] and "15745 pages" in got["evidence"]
    # ...and processes 1500 -> 3000: the areas grow with them, 770M * 2 = 1540M:
    #   (40960M + 1540M) / 2M = 21250.
    got = _reported(2048, 15745, "30G", 1500, now,
                    policy={"sga_target": "40G", "sga_max_size": "40G", "processes": 3000})
    assert got["pages"] == 21250 and "processes 1500 -> 3000" in got["evidence"]
    # Fewer processes never shrink them (the safe side): still 20865.
    got = _reported(2048, 15745, "30G", 1500, now, policy={"sga_target": "40G", "sga_max_size": "40G",
                                                           "processes": 500})
    assert got["pages"] == 20865


def test_oracles_figure_1g_pages():
    # sga 32G (granule 64M: 32768M whole), the report expects 34 x 1G = 34816M:
    #   areas = 34816M - 32768M = 2048M (its areas beside the SGA each take whole 1G pages).
    #   Parameters: (32768M + 64M) / 1024M = 32.06 -> 33. Oracle's 34 wins.
    now = {"sga_target": "32G", "sga_max_size": "32G", "processes": "2000"}
    got = _reported(1048576, 34, "32G", 2000, now)
    assert (got["computed"], got["oracle"], got["pages"]) == (33, 34, 34)
    assert "2 GiB of shared areas" in got["evidence"]
    # Raised to 48G (granule 128M: 49152M whole): Oracle's (49152M + 2048M) / 1024M = 50,
    #   the parameters' (49152M + 128M) / 1024M = 48.125 -> 49.
    got = _reported(1048576, 34, "32G", 2000, now, policy={"sga_target": "48G", "sga_max_size": "48G"})
    assert (got["computed"], got["oracle"], got["pages"]) == (49, 50, 50)


def test_an_11g_report_below_the_parameters_leaves_the_parameters():
    from numatune.families.oracle import alertlog
    # 11.2's report: 512 pages used and "at least 89" more asked: 601 expected for sga_max_size 1200M
    #   (granule 16M: 1200M whole): areas 601 x 2M - 1200M = 2M. The parameters give
    #   (1200M + 16M) / 2M = 608 > 601: the parameters count, and say so.
    text = ("Starting ORACLE instance (normal)\n****************** Large Pages Information *****************\n"
            "Total Shared Global Region in Large Pages = 1024 MB (85%)\n"
            "Large Pages used by this instance: 512 (1024 MB)\nLarge Page size = 2048 KB\n"
            "RECOMMENDATION:\n  Total Shared Global Region size is 1202 MB. For optimal performance,\n"
            "  prior to the next instance restart increase the number\n"
            "  of unused Large Pages by atleast 89 2048 KB Large Pages (178 MB)\n")
    ev = alertlog.parse(text)
    inst = {"sid": "OLD", "policy_index": None, "params": {"sga_max_size": "1200M"}, "evidence": ev}
    assert pool.oracle_figure(inst, inst["params"], 1200 * M, 2048)[0] == 601
    assert sizing.shared_areas(601, 2048, 1200 * M) == 2 * M
    topo = {"nodes": {"0": {"cpus": [0], "hugepages": {"2048": {"nr": 0, "free": 0}}}},
            "nodes_with_memory": ["0"], "hugepages": {"2048": {"nr": 0, "free": 0}}}
    got = pool.instance_sizes({}, {"topology": topo, "oracle": {"instances": [inst], "cpusets": {}}}, 2048)[0]
    assert (got["computed"], got["oracle"], got["pages"], got["evidence"]) == (608, 601, 608, "its sga_max_size")
