"""The process table of a synthetic Oracle host: system daemons (irqbalance,
multipathd, tuned), each instance's background processes (ora_pmon_SID,
ora_smon_SID, ...) and dedicated servers up to ``procs`` processes, each
with comm, cmdline, status and an fd/ directory of links as procfs shows
them; ora_smon has a numa_maps with its SGA segments. Several families scan
/proc (tuned and irqbalance detection, PM QoS holders, the SGA's placement),
so a real host's thousands of processes are part of a plan's cost."""

BACKGROUND = (["pmon", "clmn", "psp0", "vktm", "gen0", "mman", "gen1", "diag", "ofsd", "dbrm", "vkrm", "svcb",
               "pman", "dia0"] + ["dbw%d" % i for i in range(8)]
              + ["lgwr", "ckpt", "lg00", "lg01", "smon", "smco", "reco", "lreg", "pxmn", "mmon", "mmnl", "d000",
                 "s000", "tmon", "tt00", "tt01", "aqpc", "cjq0", "qm02", "q001", "q003"]
              + ["w%03d" % i for i in range(8)] + ["p%03d" % i for i in range(16)])
DAEMONS = [("systemd", ["/usr/lib/systemd/systemd", "--switched-root", "--system", "--deserialize", "17"]),
           ("systemd-journal", ["/usr/lib/systemd/systemd-journald"]),
           ("irqbalance", ["/usr/sbin/irqbalance", "--foreground"]),
           ("multipathd", ["/sbin/multipathd", "-d", "-s"]),
           ("tuned", ["/usr/libexec/platform-python", "-Es", "/usr/sbin/tuned", "-l", "-P"]),
           ("sshd", ["/usr/sbin/sshd", "-D"]),
           ("crond", ["/usr/sbin/crond", "-n"]),
           ("tnslsnr", ["/u01/app/oracle/product/19.0.0/dbhome_1/bin/tnslsnr", "LISTENER", "-inherit"])]


def processes(sids, procs):
    """[(pid, comm, argv, uid, kind)] in pid order."""
    out = [(1, "systemd", DAEMONS[0][1], 0, "daemon")]
    pid = 800
    for comm, argv in DAEMONS[1:]:
        out.append((pid, comm, argv, 54321 if comm == "tnslsnr" else 0, "daemon"))
        pid += 37
    pid = 4000
    for sid in sids:
        for name in BACKGROUND:
            comm = "ora_%s_%s" % (name, sid)
            out.append((pid, comm[:15], [comm], 54321, "background:" + sid))
            pid += 3
    i = 0
    while len(out) < procs and sids:
        sid = sids[i % len(sids)]
        out.append((pid, ("oracle" + sid)[:15], ["oracle%s (LOCAL=NO)" % sid], 54321, "server:" + sid))
        pid += 7
        i += 1
    return out


def numa_maps(nodes, sga_gb):
    """An ora_smon numa_maps: the SGA as SysV segments in 4 KiB pages spread over the nodes, then libraries."""
    pages = sga_gb * 1024 * 1024 // 4 // max(nodes, 1)
    spread = " ".join("N%d=%d" % (n, pages) for n in range(nodes))
    lines = ["60000000 interleave:0-%d file=/SYSV00000000\\040(deleted) dirty=%d %s kernelpagesize_kB=4"
             % (nodes - 1, pages * nodes, spread),
             "61c00000 interleave:0-%d file=/SYSV9a3c1f04\\040(deleted) dirty=512 N0=512 kernelpagesize_kB=4"
             % (nodes - 1)]
    for lib in ("/u01/app/oracle/product/19.0.0/dbhome_1/bin/oracle", "/usr/lib64/libc-2.28.so",
                "/usr/lib64/libpthread-2.28.so", "/u01/app/oracle/product/19.0.0/dbhome_1/lib/libodm19.so"):
        lines.append("7f3a2c000000 default file=%s mapped=412 mapmax=3001 N0=412 kernelpagesize_kB=4" % lib)
    lines.append("7ffd1e9f0000 default stack anon=9 dirty=9 N0=9 kernelpagesize_kB=4")
    return "\n".join(lines)


def write_procs(tree, sids, procs, nodes):
    table = processes(sids, procs)
    for pid, comm, argv, uid, kind in table:
        d = "/proc/%d" % pid
        tree.write(d + "/comm", comm)
        tree.write(d + "/cmdline", ("\0".join(argv) + "\0").encode())
        tree.write(d + "/status", "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\n"
                   "PPid:\t1\nUid:\t%d\t%d\t%d\t%d\nThreads:\t1\n" % (comm, pid, pid, uid, uid, uid, uid))
        targets = ["/dev/null", "/dev/null", "/dev/null"]
        if kind.startswith("background:"):
            sid = kind.split(":")[1]
            targets += ["/u02/oradata/%s/%s.dbf" % (sid, f) for f in ("system01", "sysaux01", "undotbs01",
                                                                         "users01")]
            targets += ["/u01/app/oracle/diag/rdbms/%s/%s/trace/alert_%s.log" % (sid.lower(), sid, sid)]
            if comm.startswith("ora_smon"):
                tree.write(d + "/numa_maps", numa_maps(nodes, 64))
        elif kind.startswith("server:"):
            targets += ["socket:[%d]" % (880000 + pid), "pipe:[%d]" % (990000 + pid),
                        "/u02/oradata/%s/users01.dbf" % kind.split(":")[1]]
        else:
            targets += ["socket:[%d]" % (770000 + pid), "anon_inode:[eventpoll]"]
        for fd, target in enumerate(targets):
            tree.symlink("%s/fd/%d" % (d, fd), target)
    tree.write("/proc/loadavg", "12.31 11.87 11.02 9/%d %d" % (len(table) + 300, table[-1][0]))
    return len(table)
