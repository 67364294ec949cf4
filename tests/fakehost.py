"""A small fake host root: two NUMA nodes, THP, sysctls, sysctl.d files
(including one that loads after numatune's) and a real RHEL 8.4 BLS layout
from tests/data/grub. Quick to build, so property tests can make one
per example."""
import shutil
from pathlib import Path

from conftest import REALDATA, install_numatune, write

GRUB = REALDATA / "grub" / "insights-core"


def build(root, thp="always madvise [never]\n"):
    root = Path(root)
    node = "sys/devices/system/node"
    write(root, node + "/online", "0-1\n")
    write(root, node + "/has_memory", "0-1\n")
    for n, cpus in ((0, "0-3"), (1, "4-7")):
        write(root, "%s/node%d/cpulist" % (node, n), cpus + "\n")
        write(root, "%s/node%d/distance" % (node, n), "10 21\n" if n == 0 else "21 10\n")
        write(root, "%s/node%d/meminfo" % (node, n), "Node %d MemTotal:  8388608 kB\nNode %d MemFree: 4194304 kB\n"
              % (n, n))
        write(root, "%s/node%d/hugepages/hugepages-2048kB/nr_hugepages" % (node, n), "0\n")
        write(root, "%s/node%d/hugepages/hugepages-2048kB/free_hugepages" % (node, n), "0\n")
    for c in range(8):
        write(root, "sys/devices/system/cpu/cpu%d/topology/physical_package_id" % c, "%d\n" % (c // 4))
        write(root, "sys/devices/system/cpu/cpu%d/topology/core_id" % c, "%d\n" % (c % 4))
    write(root, "sys/devices/system/cpu/online", "0-7\n")
    write(root, "sys/kernel/mm/transparent_hugepage/enabled", thp)
    write(root, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n")
    write(root, "proc/meminfo", "MemTotal: 16777216 kB\nHugepagesize: 2048 kB\n")
    write(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz-4.18.0-305.el8.x86_64 root=/dev/mapper/root ro numa=off\n")
    for key, value in (("kernel/numa_balancing", "1"), ("vm/zone_reclaim_mode", "1"),
                       ("vm/swappiness", "60"), ("net/ipv4/tcp_rmem", "4096\t131072\t6291456")):
        write(root, "proc/sys/" + key, value + "\n")
    write(root, "etc/sysctl.d/99-oracle-database-preinstall-19c-sysctl.conf",
          "# oracle-database-preinstall-19c setting for kernel.numa_balancing\nkernel.numa_balancing = 1\n"
          "vm.swappiness = 1\n", mode=0o640)
    write(root, "usr/lib/sysctl.d/50-default.conf", "kernel.sysrq = 16\n")
    entries = root / "boot/loader/entries"
    entries.mkdir(parents=True)
    shutil.copy(GRUB / "boot/loader/entries/rhel8.4-4.18.0-305.el8.x86_64.conf", entries)
    (root / "boot/grub2").mkdir(parents=True)
    (root / "boot/grub2/grubenv").write_bytes(grubenv(
        "saved_entry=rhel-20210429130346-4.18.0-305.el8.x86_64\n"
        "kernelopts=root=/dev/mapper/rhel-root ro crashkernel=auto resume=/dev/mapper/rhel-swap "
        "rd.lvm.lv=rhel/root numa=off\nboot_success=0\n"))
    (root / "etc/default").mkdir(parents=True, exist_ok=True)
    shutil.copy(GRUB / "etc/default/grub.rhel8-blscfg", root / "etc/default/grub")
    install_numatune(root)      # as the RPM installs it: numatune-boot.service can name it
    return root


def grubenv(body):
    """A real-format GRUB environment block: exactly 1024 bytes, '#' padded."""
    data = b"# GRUB Environment Block\n" + body.encode()
    return data + b"#" * (1024 - len(data))


POLICY = """
[policy]
name = "fakehost"
extends = ["oracle-numa"]

[sysctl]
"vm.swappiness" = 10
"net.ipv4.tcp_rmem" = "4096 87380 16777216"

[hugepages]
size = "2M"
count = 100
"""


def hook_nth_write(setattr_, n, after_write, effect):
    """Run ``effect()`` at the n-th value or file write, before it lands or
    right after. ``setattr_`` is monkeypatch.setattr, or plain setattr in a
    forked child that dies anyway. Returns the call counter."""
    from numatune.apply import file, value
    calls = {"n": 0}
    for module in (value, file):
        real = module.perform

        def perform(root, op, _real=real):
            calls["n"] += 1
            if calls["n"] == n and not after_write:
                effect("injected failure")
            _real(root, op)
            if calls["n"] == n and after_write:
                effect("injected failure after the write")
        setattr_(module, "perform", perform)
    return calls
