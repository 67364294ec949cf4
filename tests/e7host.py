"""The 8-socket E7 host of the papers, built as a root tree from their tables
(a data case of our own: no capture of that machine exists).

Where each fact comes from (/work/shared/papers, see tests/data/papers):
- 000_bee41b021388c063.txt, "Measure the impact of remote versus local NUMA
  node access": `numactl --hardware` (8 nodes, their CPU lists 1-10,41-50 ...
  node 4 holding CPU 0, 132864 MB each, the distance matrix 10/12/13/22), the
  cgconfig.conf of group "oracle" mounted at /cgroup/cpuset (RHEL 6.5, the
  "RedHat 6.5 machine"), cpuset.cpus "1-9" with cpuset.mems "7" (its remote
  test), the instance's lio_init.sql (db_cache_size 20g, shared_pool_size
  10g, sga_target 0, processor_group_name 'oracle'), and its node-7 pool
  after the start: 39302 - 23557 = 15745 pages "needed for my SGA", which is
  the alert log's EXPECTED_PAGES here.
- 000, "processor_group_name and SGA distribution": the per-node table with
  no instance up (MemTotal 136052736 kB, 136024568 on node 4; HugePages
  39300 on nodes 0-5 and 39299 on 6-7; free 39044/39045: 255 or 256 pages
  per node in use by something else) and the release 12.1.0.2 with
  use_large_pages = ONLY.
- The SID BDT12CG_1 and the alert log's wording follow issue #24/#36's
  report of that host; the kernel is RHEL 6.5's 2.6.32-431; numatune is
  installed from its RPM (its SysV boot script is in place).

The instance is down (no numa_maps): the E7 paper sizes pools before the
instances start. ``alert_log=False`` leaves the alert log out (the issue's
"alert log gone" case)."""
from pathlib import Path

from conftest import write

# numatune installed from its RPM: the SysV boot script that places each node's pool at boot.
BOOT_SCRIPT = Path(__file__).resolve().parent.parent / "packaging" / "sysv" / "numatune-boot"

SID = "BDT12CG_1"
HOME = "/u01/app/oracle/product/12.1.0/dbhome_1"
ALERT = "/u01/app/oracle/diag/rdbms/bdt12cg/%s/trace/alert_%s.log" % (SID, SID)
PFILE = "%s/dbs/init%s.ora" % (HOME, SID)
# numactl --hardware (000): node -> its CPU list.
CPUS = {0: "1-10,41-50", 1: "11-20,51-60", 2: "21-30,61-70", 3: "31-40,71-80", 4: "0,81-89,120-129",
        5: "90-99,130-139", 6: "100-109,140-149", 7: "110-119,150-159"}
DISTANCE = ["10 13 12 12 22 22 22 22", "13 10 12 12 22 22 22 22", "12 12 10 13 22 22 22 22",
            "12 12 13 10 22 22 22 22", "22 22 22 22 10 13 12 12", "22 22 22 22 13 10 12 12",
            "22 22 22 22 12 12 10 13", "22 22 22 22 12 12 13 10"]
MEM_KB = {n: 136024568 if n == 4 else 136052736 for n in range(8)}
POOL = {n: 39300 if n < 6 else 39299 for n in range(8)}
FREE = {0: 39044, 1: 39044, 2: 39045, 3: 39045, 4: 39045, 5: 39045, 6: 39044, 7: 39044}
# 000: 39302 - 23557 pages on node 7 for its 30 GiB SGA.
EXPECTED_PAGES = 15745


def _cpus(text):
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def alert_log(nodes="7", cpus="1-9", started="Mon Mar 02 10:14:07 2015"):
    return ("%s\nStarting ORACLE instance (normal)\n%s\n"
            "Oracle Database 12c Enterprise Edition Release 12.1.0.2.0 - 64bit Production\n"
            "NUMA system with 8 nodes detected\n"
            "Instance started in processor group oracle (NUMA Nodes: %s CPUs: %s)\n"
            "****************** Large Pages Information *****************\n"
            " Per process system memlock (soft) limit = UNLIMITED\n"
            " Expected per process system memlock (soft) limit to lock\n"
            " SHARED GLOBAL AREA (SGA) into memory: 31G\n"
            " Available system pagesizes:\n  4K, 2048K\n"
            " Supported system pagesize(s):\n"
            "  PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)\n"
            "        4K       Configured               5               5        NONE\n"
            "     2048K            39299           %d           %d        NONE\n"
            " Reason for not supporting certain system pagesizes:\n  4K - Large pagesizes only\n"
            "********************************************************************\n"
            % (started, started, nodes, cpus, EXPECTED_PAGES, EXPECTED_PAGES))


def build(root, alert_log_present=True):
    root = Path(root)
    node = "sys/devices/system/node"
    write(root, node + "/online", "0-7\n")
    write(root, node + "/has_memory", "0-7\n")
    write(root, node + "/has_normal_memory", "0-7\n")
    for n in range(8):
        write(root, "%s/node%d/cpulist" % (node, n), CPUS[n] + "\n")
        write(root, "%s/node%d/distance" % (node, n), DISTANCE[n] + "\n")
        write(root, "%s/node%d/meminfo" % (node, n),
              "Node %d MemTotal: %d kB\nNode %d MemFree: %d kB\nNode %d HugePages_Total: %d\n"
              "Node %d HugePages_Free: %d\nNode %d HugePages_Surp: 0\n"
              % (n, MEM_KB[n], n, 45000000, n, POOL[n], n, FREE[n], n))
        hp = "%s/node%d/hugepages/hugepages-2048kB/" % (node, n)
        write(root, hp + "nr_hugepages", "%d\n" % POOL[n])
        write(root, hp + "free_hugepages", "%d\n" % FREE[n])
        for core, cpu in enumerate(_cpus(CPUS[n])):
            write(root, "sys/devices/system/cpu/cpu%d/topology/physical_package_id" % cpu, "%d\n" % n)
            write(root, "sys/devices/system/cpu/cpu%d/topology/core_id" % cpu, "%d\n" % (core % 10))
    write(root, "sys/devices/system/cpu/online", "0-159\n")
    total, free = sum(POOL.values()), sum(FREE.values())
    write(root, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "%d\n" % total)
    write(root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "%d\n" % free)
    write(root, "proc/sys/vm/nr_hugepages", "%d\n" % total)
    write(root, "proc/meminfo", "MemTotal: %d kB\nHugePages_Total: %d\nHugePages_Free: %d\nHugePages_Rsvd: 0\n"
          "Hugepagesize: 2048 kB\n" % (sum(MEM_KB.values()), total, free))
    write(root, "proc/sys/kernel/osrelease", "2.6.32-431.el6.x86_64\n")
    write(root, "etc/redhat-release", "Red Hat Enterprise Linux Server release 6.5 (Santiago)\n")
    write(root, "proc/mounts", "rootfs / rootfs rw 0 0\nproc /proc proc rw,relatime 0 0\n"
          "sysfs /sys sysfs rw,relatime 0 0\ncgroup /cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n")
    write(root, "etc/cgconfig.conf", "mount {\n        cpuset  = /cgroup/cpuset;\n}\n\ngroup oracle {\n"
          "   perm {\n     task {\n       uid = oracle;\n       gid = dba;\n     }\n     admin {\n"
          "       uid = oracle;\n       gid = dba;\n     }\n   }\n   cpuset {\n     cpuset.mems=\"7\";\n"
          "     cpuset.cpus=\"1-9\";\n   }\n}\n")
    write(root, "cgroup/cpuset/cpuset.cpus", "0-159\n")
    write(root, "cgroup/cpuset/cpuset.mems", "0-7\n")
    write(root, "cgroup/cpuset/tasks", "1\n")
    write(root, "cgroup/cpuset/oracle/cpuset.cpus", "1-9\n")
    write(root, "cgroup/cpuset/oracle/cpuset.mems", "7\n")
    write(root, "cgroup/cpuset/oracle/tasks", "")
    write(root, "etc/rc.d/init.d/numatune-boot", BOOT_SCRIPT.read_text(), mode=0o755)
    write(root, "etc/oratab", "%s:%s:N\n" % (SID, HOME))
    write(root, PFILE.lstrip("/"), "*.db_name='BDT12CG'\n*.db_cache_size=20g\n*.shared_pool_size=10g\n"
          "*.sga_target=0\n*.pga_aggregate_target=8G\n*.use_large_pages='ONLY'\n"
          "*.processor_group_name='oracle'\n*.processes=600\n")
    write(root, (HOME + "/inventory/ContentsXML/comps.xml").lstrip("/"),
          '<?xml version="1.0" standalone="yes" ?>\n<PRD_LIST>\n<TL_LIST>\n'
          '<COMP NAME="oracle.server" VER="12.1.0.2.0" BUILD_NUMBER="0" REP_VER="0.0.0.0.0" RELEASE="Production">\n'
          '<EXT_NAME>Oracle Database 12c</EXT_NAME>\n</COMP>\n</TL_LIST>\n</PRD_LIST>\n')
    if alert_log_present:
        write(root, ALERT.lstrip("/"), alert_log())
    return root
