"""Oracle Database on a synthetic giant host: /etc/oratab, one
ORACLE_HOME with a pfile per instance (init<SID>.ora, the offline source
numatune reads and edits), orabasetab, and each instance's alert log where
the ADR puts it. Half the instances still run on AMM (memory_target),
which HugePages cannot serve: a plan has something to say about them."""

ORACLE_BASE = "/u01/app/oracle"
ORACLE_HOME = ORACLE_BASE + "/product/19.0.0/dbhome_1"


def sids(instances):
    return ["ORCL%d" % (i + 1) for i in range(instances)]


def pfile_text(sid, i):
    db = sid.lower()
    lines = ["# pfile for %s, created by 'create pfile from spfile' on the old host" % sid,
             "%s.__data_transfer_cache_size=0" % sid,
             "%s.__db_cache_size=48318382080" % sid,
             "%s.__java_pool_size=536870912" % sid,
             "%s.__large_pool_size=1073741824" % sid,
             "%s.__oracle_base='%s'#ORACLE_BASE set from environment" % (sid, ORACLE_BASE),
             "%s.__shared_pool_size=12884901888" % sid,
             "*.audit_file_dest='%s/admin/%s/adump'" % (ORACLE_BASE, sid),
             "*.audit_trail='db'",
             "*.compatible='19.0.0'",
             "*.control_files='/u02/oradata/%s/control01.ctl','/u03/fra/%s/control02.ctl'" % (sid, sid),
             "*.db_block_size=8192",
             "*.db_create_file_dest='/u02/oradata'",
             "*.db_name='%s'" % db,
             "*.db_recovery_file_dest='/u03/fra'",
             "*.db_recovery_file_dest_size=2048g",
             "*.diagnostic_dest='%s'" % ORACLE_BASE,
             "*.dispatchers='(PROTOCOL=TCP) (SERVICE=%sXDB)'" % sid,
             "*.open_cursors=1000",
             "*.processes=3000",
             "*.remote_login_passwordfile='EXCLUSIVE'",
             "*.undo_tablespace='UNDOTBS1'"]
    if i % 2:
        lines += ["*.memory_target=96g", "*.memory_max_target=96g"]
    else:
        lines += ["*.sga_target=64g", "*.sga_max_size=64g", "*.pga_aggregate_target=24g",
                  "*.use_large_pages='TRUE'"]
    return "\n".join(lines) + "\n"


def alert_text(sid, nodes, cpus):
    return ("2024-05-20T09:12:01.123456+02:00\nStarting ORACLE instance (normal) (OS id: 41022)\n"
            "2024-05-20T09:12:01.124012+02:00\n**********************************************************"
            "************\n2024-05-20T09:12:01.124100+02:00\nDump of system resources acquired for SHARED "
            "GLOBAL AREA (SGA)\n\n2024-05-20T09:12:01.124200+02:00\n Per process system memlock (soft) "
            "limit = 128G\n2024-05-20T09:12:01.124300+02:00\n Expected per process system memlock (soft) "
            "limit to lock\n instance MAX SHARED GLOBAL AREA (SGA) into memory: 64G\n"
            "2024-05-20T09:12:01.124400+02:00\n Available system pagesizes:\n  4K, 2048K, 1048576K \n"
            "2024-05-20T09:12:01.124500+02:00\n Supported system pagesize(s):\n"
            "  PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)\n"
            "        4K       Configured        16777220        16777220        NONE\n"
            "     2048K                0           32769               0        NONE\n"
            "2024-05-20T09:12:01.124600+02:00\nNUMA system with %d nodes detected\n"
            "2024-05-20T09:12:01.124700+02:00\nOracle NUMA support not enabled\n"
            "2024-05-20T09:12:01.124800+02:00\nLICENSE_MAX_SESSION = 0\nLICENSE_SESSIONS_WARNING = 0\n"
            "2024-05-20T09:12:01.124900+02:00\nInitial number of CPU is %d\n"
            "2024-05-20T09:12:01.125000+02:00\nNumber of processor cores in the system is %d\n"
            "Completed: ALTER DATABASE OPEN\n" % (nodes, cpus, cpus // 2))


def write_oracle(tree, instances, nodes, cpus):
    names = sids(instances)
    tree.write("/etc/oratab", "#\n# This file is used by ORACLE utilities.  It is created by root.sh\n"
               "# and updated by either Database Configuration Assistant while creating\n"
               "# a database or ASM Configuration Assistant while creating ASM instance.\n#\n"
               "#   $ORACLE_SID:$ORACLE_HOME:<N|Y>:\n#\n"
               + "".join("%s:%s:Y\n" % (sid, ORACLE_HOME) for sid in names))
    tree.write(ORACLE_HOME + "/install/orabasetab", "#orabasetab file is used to track Oracle Home "
               "associated with Oracle Base\n%s:%s:OraDB19Home1:N:\n" % (ORACLE_HOME, ORACLE_BASE))
    for i, sid in enumerate(names):
        tree.write("%s/dbs/init%s.ora" % (ORACLE_HOME, sid), pfile_text(sid, i))
        tree.write("%s/diag/rdbms/%s/%s/trace/alert_%s.log" % (ORACLE_BASE, sid.lower(), sid, sid),
                   alert_text(sid, nodes, cpus))
    tree.write("/etc/security/limits.d/oracle-database-preinstall-19c.conf",
               "oracle   soft   nofile    1024\noracle   hard   nofile    65536\noracle   soft   nproc    16384\n"
               "oracle   hard   nproc    16384\noracle   soft   stack    10240\noracle   hard   stack    32768\n"
               "oracle   hard   memlock    unlimited\noracle   soft   memlock    unlimited\n")
    return names
