"""A Superdome-X-shaped host, built from the papers' tables (a data case of
this project's own, not a capture): 001_211b0b645b2f1cc8.txt's 16-socket
Superdome X (8 BL920s blades of two Xeon E7-2890 v2 sockets, 15 cores and 2
threads each: 480 CPUs) booted with the paper's own /proc/cmdline, which has
``numa=off`` (so the kernel shows one node over 16 sockets) while the
firmware's ACPI SRAT still describes 16 proximity domains; 3PAR LUNs over
two paths each behind dm-multipath (the block_fixture layout, 3PARdata VV);
eight ixgbe 10Gb NICs with the paper's names (eno24 ... eno553, its `ip`
listing) at Table 5's low-performance values (MTU 1500, rx-usecs 1, UDP
hashed by addresses only); tuned's ``balanced`` profile active (Table 5's
low column); one Oracle 12.1 instance ORCL with a pfile, HugePages unused.

What is not in the paper is said here: memory (256 GiB a socket), the LUN
count (2) and the bootloader files, which are those of
tests/cases/boot/cmdline-grub2-legacy (a RHEL 7 grub2 layout, with the
paper's command line put in). The NICs have no ifcfg file but eno24's: the
others are configured elsewhere (as on the held-out host of #36)."""
import shutil
import struct
from pathlib import Path

from block_fixture import san_host
from conftest import write
from test_cpu_power import make_power_root

CASES = Path(__file__).parent / "cases"
SOCKETS, CORES, THREADS = 16, 15, 2
CPUS = SOCKETS * CORES * THREADS
SOCKET_KB = 256 << 20
KERNEL = "3.10.0-1160.el7.x86_64"
# 001's /proc/cmdline (its "numa=off" section), on this root's kernel.
CMDLINE = ("BOOT_IMAGE=/vmlinuz-%s root=/dev/mapper/rhel-root ro rd.lvm.lv=rhel/root crashkernel=512M "
           "rd.lvm.lv=rhel/swap vconsole.font=latarcyrheb-sun16 vconsole.keymap=us nosplash "
           "earlycon=uart8250,io,0x3f8,115200n8 intel_idle.max_cstate=1 numa=off console=ttyS0,115200" % KERNEL)
NICS = ("eno24", "eno25", "eno200", "eno201", "eno376", "eno377", "eno552", "eno553")
LATENCY_PERFORMANCE = """[main]
summary=Optimize for deterministic performance at the cost of increased power consumption

[cpu]
force_latency=1
governor=performance
energy_perf_bias=performance
min_perf_pct=100

[sysctl]
kernel.sched_min_granularity_ns=10000000
vm.dirty_ratio=10
vm.dirty_background_ratio=3
vm.swappiness=10
kernel.sched_migration_cost_ns=5000000
"""
BALANCED = """[main]
summary=General non-specialized tuned profile

[cpu]
governor=conservative
energy_perf_bias=normal

[disk]
# devices=sda
"""


# HPE's 3PAR entry as RHEL 7 hosts carry it (ALUA, round-robin), before Table 13's rr_min_io_rq 1.
MULTIPATH_CONF = """defaults {
    user_friendly_names yes
    find_multipaths yes
}
devices {
    device {
        vendor "3PARdata"
        product "VV"
        path_grouping_policy group_by_prio
        path_selector "round-robin 0"
        path_checker tur
        hardware_handler "1 alua"
        prio alua
        failback immediate
        no_path_retry 18
    }
}
"""


def srat(domains, cpus_per_domain):
    """An ACPI SRAT (ACPI 6.x 5.2.16): per domain, its x2APIC entries and one memory range."""
    body, apic = b"", 0
    for domain in range(domains):
        for _ in range(cpus_per_domain):
            body += struct.pack("<BBHIIII", 2, 24, 0, domain, apic, 1, 0) + b"\0" * 4
            apic += 1
        body += struct.pack("<BBIHQQIIQ", 1, 40, domain, 0, domain * (SOCKET_KB << 10), SOCKET_KB << 10, 0, 1, 0)
    header = b"SRAT" + struct.pack("<IBB6s8sIII", 48 + len(body), 3, 0, b"HPE   ", b"SDX     ", 1, 0, 0)
    return header + struct.pack("<IQ", 1, 0) + body


def _nic(root, index, name):
    pci = "0000:%02x:00.%d" % (0x10 + index // 2 * 0x20, index % 2)
    dev = "sys/devices/pci0000:00/%s" % pci
    write(root, dev + "/numa_node", "-1\n")     # numa=off: the kernel places no device
    write(root, dev + "/local_cpulist", "0-%d\n" % (CPUS - 1))
    irqs = [100 + index * 4 + q for q in range(4)]
    for irq in irqs:
        write(root, "%s/msi_irqs/%d" % (dev, irq), "msix\n")
        write(root, "proc/irq/%d/smp_affinity_list" % irq, "0-%d\n" % (CPUS - 1))
    net = dev + "/net/" + name
    for key, value in (("address", "9c:b6:54:0a:%02x:%02x" % (index // 2, index)), ("mtu", "1500"),
                       ("operstate", "up"), ("speed", "10000"), ("type", "1"),
                       ("uevent", "INTERFACE=%s\nIFINDEX=%d" % (name, index + 2))):
        write(root, "%s/%s" % (net, key), value + "\n")
    for q in range(4):
        write(root, "%s/queues/rx-%d/rps_cpus" % (net, q), "0\n")
    (root / dev / "driver").symlink_to("../../../bus/pci/drivers/ixgbe")
    (root / net / "device").symlink_to("../../../%s" % pci)
    (root / "sys/class/net").mkdir(parents=True, exist_ok=True)
    (root / "sys/class/net" / name).symlink_to("../../devices/pci0000:00/%s/net/%s" % (pci, name))
    return irqs


def build(root):
    root = Path(root)
    legacy = CASES / "boot" / "cmdline-grub2-legacy" / "root"
    for path in ("etc/default/grub", "boot/grub2/grub.cfg"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        text = (legacy / path).read_text().replace("ol-root", "rhel-root").replace("ol/", "rhel/")
        (root / path).write_text(text)
    write(root, "proc/cmdline", CMDLINE + "\n")
    write(root, "proc/sys/kernel/osrelease", KERNEL + "\n")
    write(root, "etc/redhat-release", "Red Hat Enterprise Linux Server release 7.9 (Maipo)\n")
    write(root, "etc/os-release", 'NAME="Red Hat Enterprise Linux Server"\nVERSION="7.9 (Maipo)"\nID="rhel"\n'
          'VERSION_ID="7.9"\n')
    write(root, "etc/hostname", "sdx\n")
    # numa=off: one node, every CPU and all memory in it.
    node = "sys/devices/system/node"
    write(root, node + "/online", "0\n")
    write(root, node + "/has_memory", "0\n")
    write(root, node + "/node0/cpulist", "0-%d\n" % (CPUS - 1))
    write(root, node + "/node0/distance", "10\n")
    total = SOCKETS * SOCKET_KB
    write(root, node + "/node0/meminfo", "Node 0 MemTotal: %d kB\nNode 0 MemFree: %d kB\n" % (total, total // 2))
    for f in ("nr_hugepages", "free_hugepages"):
        write(root, node + "/node0/hugepages/hugepages-2048kB/" + f, "0\n")
    write(root, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n")
    write(root, "proc/meminfo", "MemTotal: %d kB\nMemFree: %d kB\nHugePages_Total: 0\nHugePages_Free: 0\n"
          "Hugepagesize: 2048 kB\n" % (total, total // 2))
    cpu = "sys/devices/system/cpu"
    for c in range(CPUS):
        # Linux numbers the first thread of every core first, then their siblings.
        thread, core = divmod(c, SOCKETS * CORES)
        write(root, "%s/cpu%d/topology/physical_package_id" % (cpu, c), "%d\n" % (core // CORES))
        write(root, "%s/cpu%d/topology/core_id" % (cpu, c), "%d\n" % (core % CORES))
    write(root, cpu + "/online", "0-%d\n" % (CPUS - 1))
    write(root, "proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU "
          "E7-2890 v2 @ 2.80GHz\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov "
          "pat pse36 clflush dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm "
          "constant_tsc arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc aperfmperf eagerfpu pni "
          "pclmulqdq dtes64 monitor ds_cpl vmx smx est tm2 ssse3 cx16 xtpr pdcm pcid dca sse4_1 sse4_2 "
          "x2apic popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm ida arat epb pln pts dtherm "
          "tpr_shadow vnmi flexpriority ept vpid fsgsbase smep erms\n\n")
    # Table 2's low-performance set: powersave; intel_idle (the command line limits it to C1).
    make_power_root(root, range(CPUS), states=[(0, "POLL", 0), (1, "C1-IVT", 1), (2, "C1E-IVT", 10),
                                                (3, "C3-IVT", 59), (4, "C6-IVT", 82)])
    (root / "sys/firmware/acpi/tables").mkdir(parents=True)
    (root / "sys/firmware/acpi/tables/SRAT").write_bytes(srat(SOCKETS, CORES * THREADS))
    write(root, "sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n")
    for key, value in (("kernel/numa_balancing", "1"), ("vm/zone_reclaim_mode", "0"), ("vm/swappiness", "60"),
                       ("net/core/rmem_max", "212992"), ("net/core/wmem_max", "212992"),
                       ("net/ipv4/tcp_rmem", "4096\t87380\t6291456"), ("net/ipv4/tcp_wmem", "4096\t16384\t4194304")):
        write(root, "proc/sys/" + key, value + "\n")
    # Storage: 3PAR LUNs over two paths each, and the local boot disk.
    san_host(root, luns=2, paths=2, multipath_conf=MULTIPATH_CONF)
    # As on the held-out host of #36: a map whose queue offers no scheduler to choose.
    write(root, "sys/devices/virtual/block/dm-1/queue/scheduler", "none\n")
    write(root, "proc/sys/kernel/osrelease", KERNEL + "\n")
    # Network: eight ixgbe NICs; only eno24 has an ifcfg file.
    irqs = []
    for i, name in enumerate(NICS):
        irqs += _nic(root, i, name)
    write(root, "sys/bus/pci/drivers/ixgbe/uevent", "DRIVER=ixgbe\n")
    write(root, "proc/interrupts", "CPU0 CPU1\n" + "".join(
        "%d: 100 0 IR-PCI-MSI-edge %s-TxRx-%d\n" % (irq, NICS[(irq - 100) // 4], (irq - 100) % 4) for irq in irqs))
    write(root, "etc/sysconfig/network-scripts/ifcfg-eno24", "DEVICE=eno24\nBOOTPROTO=none\nONBOOT=yes\n"
          "IPADDR=10.1.1.24\nPREFIX=24\n")
    import json
    eth = {"channels": {"current": {"combined": 60, "other": 1, "rx": 0, "tx": 0},
                        "max": {"combined": 63, "other": 1, "rx": 0, "tx": 0}},
           "coalesce": {"current": {"adaptive-rx": 0, "rx-usecs": 1, "tx-usecs": 0}},
           "ring": {"current": {"rx": 512, "tx": 512}, "max": {"rx": 4096, "tx": 4096}},
           "rx_flow_hash": {"current": {"tcp4": "sdfn", "udp4": "sd"}}}
    write(root, "numatune-snapshot/ethtool.json", json.dumps({"version": 1, "interfaces": {n: eth for n in NICS}}))
    # tuned: Table 5's low-performance profile active.
    for name, text in (("latency-performance", LATENCY_PERFORMANCE), ("balanced", BALANCED)):
        write(root, "usr/lib/tuned/%s/tuned.conf" % name, text)
    write(root, "etc/tuned/active_profile", "balanced\n")
    write(root, "etc/systemd/system/multi-user.target.wants/tuned.service", "")
    # Oracle: one 12.1 instance, its pfile; no NUMA support, no HugePages.
    home = "u01/app/oracle/product/12.1.0/dbhome_1"
    write(root, "etc/oratab", "ORCL:/%s:Y\n" % home)
    write(root, home + "/dbs/initORCL.ora", "*.db_name='ORCL'\n*.sga_target=64G\n*.pga_aggregate_target=16G\n"
          "*.processes=3000\n")
    lsinv = CASES / "oracle" / "version-aware" / "root" / "u01/app/oracle/product/12.1.0/dbhome_1/cfgtoollogs"
    shutil.copytree(lsinv, root / home / "cfgtoollogs")
    return root
