"""The system part of a synthetic giant host: OS files, /proc, NUMA nodes,
CPUs with cpufreq/cpuidle, cgroup v1 cpusets, bootloader, sysctl files.

Layouts follow a RHEL 8 host on the 6.x/4.18 kernels: the same files, names
and formats a real capture has (see tests/data), at a size no test
machine has.
"""
from hosttree import cpulist, cpumask

KERNEL = "4.18.0-553.el8_10.x86_64"
MACHINE_ID = "3b1bf67095e94696b600ed25416e97a8"
BOOT_ARGS = ("root=/dev/mapper/rhel-root ro crashkernel=auto resume=/dev/mapper/rhel-swap "
             "rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap rhgb quiet")
NODE_MEM_KB = 1536 * 1024 * 1024  # 1.5 TiB per node: a 12 TiB, 8-node Superdome-class host


class Layout:
    """Which CPU sits where: ``threads`` hardware threads per core, CPU ids
    numbered as the kernel enumerates them (first threads of every core of
    every socket, then their siblings)."""

    def __init__(self, sockets, nodes, cpus, threads=2):
        if cpus % (sockets * threads) or sockets % nodes:
            raise SystemExit("make_host: %d CPUs do not split into %d sockets x %d threads, or %d sockets "
                             "into %d nodes" % (cpus, sockets, threads, sockets, nodes))
        self.sockets, self.nodes, self.ncpus, self.threads = sockets, nodes, cpus, threads
        self.cores = cpus // (sockets * threads)
        self.cpu = {}  # id -> (socket, core index, thread)
        for t in range(threads):
            for s in range(sockets):
                for c in range(self.cores):
                    self.cpu[t * sockets * self.cores + s * self.cores + c] = (s, c, t)

    def node_of_socket(self, s):
        return s * self.nodes // self.sockets

    def node_of(self, cpu):
        return self.node_of_socket(self.cpu[cpu][0])

    def cpus_of_node(self, n):
        return sorted(c for c in self.cpu if self.node_of(c) == n)

    def siblings(self, cpu):
        s, c, _ = self.cpu[cpu]
        return [i for i, (s2, c2, _) in sorted(self.cpu.items()) if s2 == s and c2 == c]

    def core_id(self, c):
        # Real Xeons number cores with gaps (0-7, 16-22): parsers must not assume 0..n-1.
        return c if c < 8 else c + 8

    def distance(self, a, b):
        if a == b:
            return 10
        return 21 if a // 2 == b // 2 else 31


def write_os(tree, hostname):
    tree.write("/etc/os-release", 'NAME="Red Hat Enterprise Linux"\nVERSION="8.10 (Ootpa)"\nID="rhel"\n'
               'ID_LIKE="fedora"\nVERSION_ID="8.10"\nPLATFORM_ID="platform:el8"\n'
               'PRETTY_NAME="Red Hat Enterprise Linux 8.10 (Ootpa)"\n')
    tree.write("/etc/redhat-release", "Red Hat Enterprise Linux release 8.10 (Ootpa)")
    tree.write("/etc/hostname", hostname)
    tree.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
               "oracle:x:54321:54321::/home/oracle:/bin/bash\ngrid:x:54331:54321::/home/grid:/bin/bash\n")
    tree.write("/etc/group", "root:x:0:\noinstall:x:54321:oracle,grid\ndba:x:54322:oracle,grid\n"
               "asmadmin:x:54329:grid\n")
    tree.write("/proc/sys/kernel/osrelease", KERNEL)
    tree.write("/proc/sys/kernel/hostname", hostname)
    tree.write("/proc/version", "Linux version %s (mockbuild@x86-vm-07.build.eng.bos.redhat.com) "
               "(gcc version 8.5.0 20210514 (Red Hat 8.5.0-22) (GCC)) #1 SMP" % KERNEL)
    tree.write("/proc/cmdline", "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-%s %s" % (KERNEL, BOOT_ARGS))


SYSCTLS = {
    "kernel/numa_balancing": "1", "kernel/shmmax": "4398046511104", "kernel/shmall": "1073741824",
    "kernel/shmmni": "4096", "kernel/sem": "250\t32000\t100\t128", "kernel/panic_on_oops": "1",
    "kernel/sched_migration_cost_ns": "500000", "vm/zone_reclaim_mode": "0", "vm/swappiness": "60",
    "vm/dirty_ratio": "20", "vm/dirty_background_ratio": "10", "vm/min_free_kbytes": "11534336",
    "vm/nr_hugepages": "0", "vm/nr_overcommit_hugepages": "0", "vm/nr_hugepages_mempolicy": "0",
    "vm/hugetlb_shm_group": "0", "fs/file-max": "6815744", "fs/aio-max-nr": "1048576",
    "net/core/rmem_default": "262144", "net/core/rmem_max": "4194304", "net/core/wmem_default": "262144",
    "net/core/wmem_max": "1048576", "net/core/netdev_max_backlog": "1000", "net/core/somaxconn": "4096",
    "net/ipv4/ip_local_port_range": "9000\t65500", "net/ipv4/tcp_rmem": "4096\t87380\t6291456",
    "net/ipv4/tcp_wmem": "4096\t16384\t4194304",
}


def write_sysctl(tree):
    for key, value in SYSCTLS.items():
        tree.write("/proc/sys/" + key, value)
    tree.write("/usr/lib/sysctl.d/50-default.conf", "# systemd defaults\nkernel.sysrq = 16\n"
               "kernel.core_uses_pid = 1\nnet.ipv4.conf.all.rp_filter = 1\nfs.protected_hardlinks = 1\n")
    tree.write("/usr/lib/sysctl.d/10-default-yama-scope.conf", "kernel.yama.ptrace_scope = 0\n")
    # What oracle-database-preinstall-19c drops in; it loads after numatune's 90- file.
    tree.write("/etc/sysctl.d/99-oracle-database-preinstall-19c-sysctl.conf",
               "# oracle-database-preinstall-19c setting for fs.file-max is 6815744\nfs.file-max = 6815744\n"
               "kernel.sem = 250 32000 100 128\nkernel.shmmni = 4096\nkernel.shmall = 1073741824\n"
               "kernel.shmmax = 4398046511104\nkernel.panic_on_oops = 1\nnet.core.rmem_default = 262144\n"
               "net.core.rmem_max = 4194304\nnet.core.wmem_default = 262144\nnet.core.wmem_max = 1048576\n"
               "net.ipv4.conf.all.rp_filter = 2\nnet.ipv4.conf.default.rp_filter = 2\n"
               "fs.aio-max-nr = 1048576\nnet.ipv4.ip_local_port_range = 9000 65500\n")
    tree.write("/etc/sysctl.conf", "# System default settings live in /usr/lib/sysctl.d/00-system.conf.\n")


def write_memory(tree, layout):
    total = NODE_MEM_KB * layout.nodes
    tree.write("/proc/meminfo", "".join("%-16s%14s kB\n" % (k + ":", v) if k not in (
        "HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp") else "%-16s%8s\n" % (k + ":", v)
        for k, v in [
            ("MemTotal", total), ("MemFree", total * 9 // 10), ("MemAvailable", total * 92 // 100),
            ("Buffers", 1048576), ("Cached", total // 50), ("SwapCached", 0), ("Active", total // 40),
            ("Inactive", total // 60), ("AnonPages", total // 100), ("Shmem", 65536), ("PageTables", 4194304),
            ("SwapTotal", 33554428), ("SwapFree", 33554428), ("AnonHugePages", 2097152),
            ("HugePages_Total", 0), ("HugePages_Free", 0), ("HugePages_Rsvd", 0), ("HugePages_Surp", 0),
            ("Hugepagesize", 2048), ("Hugetlb", 0), ("DirectMap4k", 1048576), ("DirectMap2M", 67108864),
            ("DirectMap1G", total)]))
    for kb in (2048, 1048576):
        base = "/sys/kernel/mm/hugepages/hugepages-%dkB" % kb
        tree.attrs(base, {"nr_hugepages": 0, "free_hugepages": 0, "surplus_hugepages": 0, "resv_hugepages": 0,
                          "nr_overcommit_hugepages": 0, "nr_hugepages_mempolicy": 0})
    thp = "/sys/kernel/mm/transparent_hugepage"
    tree.attrs(thp, {"enabled": "[always] madvise never", "defrag": "always defer defer+madvise [madvise] never",
                     "use_zero_page": 1, "hpage_pmd_size": 2097152})
    tree.attrs(thp + "/khugepaged", {"defrag": 1, "pages_to_scan": 4096, "scan_sleep_millisecs": 10000})


def write_nodes(tree, layout):
    base = "/sys/devices/system/node"
    every = cpulist(range(layout.nodes))
    tree.attrs(base, {"online": every, "possible": every, "has_cpu": every, "has_memory": every,
                      "has_normal_memory": every})
    for n in range(layout.nodes):
        d = "%s/node%d" % (base, n)
        cpus = layout.cpus_of_node(n)
        tree.attrs(d, {"cpulist": cpulist(cpus), "cpumap": cpumask(cpus, layout.ncpus),
                       "distance": " ".join(str(layout.distance(n, m)) for m in range(layout.nodes))})
        mem = NODE_MEM_KB
        tree.write(d + "/meminfo", "".join("Node %d %-16s%14s kB\n" % (n, k + ":", v) for k, v in [
            ("MemTotal", mem), ("MemFree", mem * 9 // 10), ("MemUsed", mem // 10), ("Active", mem // 40),
            ("Inactive", mem // 60), ("FilePages", mem // 50), ("AnonPages", mem // 100),
            ("AnonHugePages", 262144)]) + "".join("Node %d %s %5d\n" % (n, k + ":", 0) for k in (
                "HugePages_Total", "HugePages_Free", "HugePages_Surp")))
        tree.write(d + "/numastat", "numa_hit 9318432981\nnuma_miss 1203\nnuma_foreign 1203\n"
                   "interleave_hit 51234\nlocal_node 9318402910\nother_node 31274\n")
        for kb in (2048, 1048576):
            tree.attrs("%s/hugepages/hugepages-%dkB" % (d, kb),
                       {"nr_hugepages": 0, "free_hugepages": 0, "surplus_hugepages": 0})
        for c in cpus:
            tree.link("%s/cpu%d" % (d, c), "/sys/devices/system/cpu/cpu%d" % c)


CSTATES = [("POLL", "CPUIDLE CORE POLL IDLE", 0, 0), ("C1", "MWAIT 0x00", 2, 2),
           ("C1E", "MWAIT 0x01", 10, 20), ("C6", "MWAIT 0x20", 133, 600)]


def write_cpus(tree, layout):
    base = "/sys/devices/system/cpu"
    every = cpulist(layout.cpu)
    tree.attrs(base, {"online": every, "possible": every, "present": every, "offline": "", "isolated": "",
                      "nohz_full": " (null)", "kernel_max": 8191})
    tree.attrs(base + "/smt", {"active": 1, "control": "on"})
    tree.attrs(base + "/cpuidle", {"current_driver": "intel_idle", "current_governor_ro": "menu"})
    for cpu, (s, c, t) in sorted(layout.cpu.items()):
        d = "%s/cpu%d" % (base, cpu)
        if cpu:
            tree.write(d + "/online", "1")
        sib = layout.siblings(cpu)
        package = [i for i, (s2, _, _) in sorted(layout.cpu.items()) if s2 == s]
        tree.attrs(d + "/topology", {
            "physical_package_id": s, "die_id": 0, "core_id": layout.core_id(c), "cluster_id": layout.core_id(c),
            "thread_siblings_list": cpulist(sib), "thread_siblings": cpumask(sib, layout.ncpus),
            "core_cpus_list": cpulist(sib), "core_siblings_list": cpulist(package),
            "core_siblings": cpumask(package, layout.ncpus), "package_cpus_list": cpulist(package),
            "die_cpus_list": cpulist(package)})
        tree.link("%s/node%d" % (d, layout.node_of(cpu)), "/sys/devices/system/node/node%d" % layout.node_of(cpu))
        policy = "%s/cpufreq/policy%d" % (base, cpu)
        tree.attrs(policy, {"scaling_governor": "powersave", "scaling_available_governors": "performance powersave",
                            "scaling_driver": "intel_pstate", "affected_cpus": cpu, "related_cpus": cpu,
                            "cpuinfo_min_freq": 1000000, "cpuinfo_max_freq": 3400000,
                            "scaling_min_freq": 1000000, "scaling_max_freq": 3400000,
                            "energy_performance_preference": "balance_performance"})
        tree.link(d + "/cpufreq", policy)
        for k, (name, desc, latency, residency) in enumerate(CSTATES):
            tree.attrs("%s/cpuidle/state%d" % (d, k), {"name": name, "desc": desc, "latency": latency,
                                                       "residency": residency, "disable": 0, "usage": 1000 * k,
                                                       "time": 99999 * k})


def write_cgroup(tree, layout):
    every = cpulist(layout.cpu)
    tree.write("/proc/mounts", "sysfs /sys sysfs rw,seclabel,nosuid,nodev,noexec,relatime 0 0\n"
               "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
               "/dev/mapper/rhel-root / xfs rw,seclabel,relatime,attr2,inode64,noquota 0 0\n"
               "tmpfs /sys/fs/cgroup tmpfs ro,seclabel,nosuid,nodev,noexec,mode=755 0 0\n"
               "cgroup /sys/fs/cgroup/systemd cgroup rw,nosuid,nodev,noexec,relatime,xattr,"
               "release_agent=/usr/lib/systemd/systemd-cgroups-agent,name=systemd 0 0\n"
               "cgroup /sys/fs/cgroup/cpuset cgroup rw,seclabel,nosuid,nodev,noexec,relatime,cpuset 0 0\n"
               "cgroup /sys/fs/cgroup/memory cgroup rw,seclabel,nosuid,nodev,noexec,relatime,memory 0 0\n"
               "hugetlbfs /dev/hugepages hugetlbfs rw,seclabel,relatime,pagesize=2M 0 0\n")
    cg = "/sys/fs/cgroup/cpuset"
    tree.attrs(cg, {"cpuset.cpus": every, "cpuset.mems": cpulist(range(layout.nodes)),
                    "cpuset.effective_cpus": every, "cpuset.effective_mems": cpulist(range(layout.nodes)),
                    "cpuset.cpu_exclusive": 1, "cpuset.mem_exclusive": 1, "cpuset.memory_migrate": 0,
                    "cpuset.sched_load_balance": 1, "cpuset.memory_pressure_enabled": 0,
                    "cgroup.clone_children": 0, "cgroup.procs": "1", "tasks": "1", "notify_on_release": 0,
                    "release_agent": "", "cgroup.sane_behavior": 0})


def write_boot(tree):
    """RHEL 8 BLS: entries say ``$kernelopts $tuned_params``, grubenv holds them."""
    tree.write("/etc/default/grub", 'GRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR="$(sed \'s, release .*$,,g\' '
               '/etc/system-release)"\nGRUB_DEFAULT=saved\nGRUB_DISABLE_SUBMENU=true\n'
               'GRUB_TERMINAL_OUTPUT="console"\nGRUB_CMDLINE_LINUX="%s"\nGRUB_DISABLE_RECOVERY="true"\n'
               'GRUB_ENABLE_BLSCFG=true\n' % BOOT_ARGS.replace("root=/dev/mapper/rhel-root ro ", ""))
    env = "# GRUB Environment Block\nsaved_entry=%s-%s\nkernelopts=root=/dev/mapper/rhel-root ro %s\n" \
          "boot_success=0\n" % (MACHINE_ID, KERNEL, BOOT_ARGS.replace("root=/dev/mapper/rhel-root ro ", ""))
    tree.write("/boot/grub2/grubenv", (env + "#" * (1024 - len(env))).encode())
    tree.write("/boot/grub2/grub.cfg", "### BEGIN /etc/grub.d/00_header ###\nset pager=1\n"
               "if [ -f ${config_directory}/grubenv ]; then\n  load_env -f ${config_directory}/grubenv\nfi\n"
               "### END /etc/grub.d/00_header ###\n### BEGIN /etc/grub.d/10_linux ###\ninsmod part_gpt\n"
               "insmod xfs\nset root='hd0,gpt2'\nif [ -z \"${kernelopts}\" ]; then\n"
               "  set kernelopts=\"root=/dev/mapper/rhel-root ro %s \"\nfi\ninsmod blscfg\nblscfg\n"
               "### END /etc/grub.d/10_linux ###\n" % BOOT_ARGS.replace("root=/dev/mapper/rhel-root ro ", ""))
    for version, title in ((KERNEL, "Red Hat Enterprise Linux (%s) 8.10 (Ootpa)" % KERNEL),
                           ("0-rescue", "Red Hat Enterprise Linux (0-rescue-%s) 8.10 (Ootpa)" % MACHINE_ID)):
        tree.write("/boot/loader/entries/%s-%s.conf" % (MACHINE_ID, version),
                   "title %s\nversion %s\nlinux /vmlinuz-%s\ninitrd /initramfs-%s.img $tuned_initrd\n"
                   "options $kernelopts $tuned_params\nid rhel-20240501-%s\ngrub_users $grub_users\n"
                   "grub_arg --unrestricted\ngrub_class kernel\n" % (title, version, version, version, version))


def write_tuned(tree):
    tree.write("/etc/tuned/active_profile", "throughput-performance")
    tree.write("/etc/tuned/profile_mode", "manual")
    # Enabled, as on any host where a profile is active: tuned loads it at boot.
    tree.write("/etc/systemd/system/multi-user.target.wants/tuned.service", "")
    tree.write("/usr/lib/tuned/throughput-performance/tuned.conf",
               "#\n# tuned configuration\n#\n\n[main]\nsummary=Broadly applicable tuning that provides excellent "
               "performance across a variety of common server workloads\n\n[variables]\n"
               "thunderx_cpuinfo_regex=CPU part\\s+:\\s+(0x0?516)|(0x0?af)|(0x0?a[0-3])|(0x0?b8)\\b\n\n"
               "[cpu]\ngovernor=performance\nenergy_perf_bias=performance\nmin_perf_pct=100\n\n"
               "[vm]\ntransparent_hugepages=always\n\n[disk]\nreadahead=>4096\n\n[sysctl]\n"
               "kernel.sched_min_granularity_ns = 10000000\nkernel.sched_wakeup_granularity_ns = 15000000\n"
               "vm.dirty_ratio = 40\nvm.dirty_background_ratio = 10\nvm.swappiness=10\n")
