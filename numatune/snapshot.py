"""``numatune snapshot``: the files numatune reads, packed as a root that
``--root`` accepts. packaging/numatune-snapshot.sh captures the same list
with POSIX sh for hosts that cannot run numatune (RHEL 6/7).

sysfs and procfs files claim a size of 4096 or 0, so each is read whole and
stored with its real length.
"""
import io
import os
import re
import tarfile
import time

# (directory, name regex, descend into matching subdirectories)
PATTERNS = [
    ("/proc", r"^(cmdline|meminfo|cpuinfo|version|mounts|interrupts)$", False),
    ("/proc/sys/kernel", r"^(osrelease|hostname|numa_balancing|sched_.*|shm.*|sem)$", False),
    ("/proc/sys/vm", r".*", False),
    ("/proc/sys/net/core", r"^(rmem_.*|wmem_.*|netdev_max_backlog|somaxconn)$", False),
    ("/proc/sys/net/ipv4", r"^(tcp_rmem|tcp_wmem|ip_local_port_range)$", False),
    ("/sys/devices/system/node", r"^(online|possible|has_cpu|has_memory|has_normal_memory|node\d+)$", True),
    ("/sys/devices/system/cpu", r"^(online|possible|present|offline|isolated|nohz_full|cpu\d+)$", True),
    ("/sys/kernel/mm/transparent_hugepage", r"^(enabled|defrag)$", False),
    ("/sys/kernel/mm/redhat_transparent_hugepage", r"^(enabled|defrag)$", False),
    ("/sys/kernel/mm/hugepages", r".*", True),
    ("/etc", r"^(os-release|redhat-release|oracle-release|system-release|hostname|sysctl\.conf|oratab|"
             r"passwd|group)$", False),
    ("/etc/sysctl.d", r".*\.conf$", False),
    ("/run/sysctl.d", r".*\.conf$", False),
    ("/usr/lib/sysctl.d", r".*\.conf$", False),
    ("/etc/default", r"^grub$", False),
    ("/etc/kernel", r"^cmdline$", False),
    ("/boot/loader/entries", r".*\.conf$", False),
    ("/boot/grub2", r"^(grub\.cfg|grubenv)$", False),
    ("/boot/efi/EFI", r".*", True),
    ("/etc/numatune", r".*", True),
]
# Inside node and cpu directories only these matter; the rest is large and unread.
SUBDIR_KEEP = re.compile(r"^(cpulist|cpumap|meminfo|distance|hugepages|hugepages-\d+kB|nr_hugepages|"
                         r"free_hugepages|surplus_hugepages|topology|physical_package_id|core_id|die_id|"
                         r"thread_siblings_list|core_siblings_list|online|cpufreq|cpuidle|EFI|.*\.cfg|grubenv|"
                         r"[A-Za-z0-9_.-]+\.(toml|conf))$")


def walk(root):
    """Host paths (files and symlinks) a snapshot holds, sorted."""
    out = []
    for directory, pattern, descend in PATTERNS:
        rx = re.compile(pattern)
        for name in root.listdir(directory):
            if not rx.match(name):
                continue
            path = "%s/%s" % (directory, name)
            out.extend(_collect(root, path, descend, depth=0))
    return sorted(set(out))


def _collect(root, path, descend, depth):
    real = root.join(path)
    if os.path.islink(real) and not path.startswith("/sys/devices/system/node/node"):
        return [path]
    if os.path.isdir(real):
        if not descend or depth > 4:
            return []
        found = []
        for name in root.listdir(path):
            if depth == 0 and path.startswith("/etc/numatune") or SUBDIR_KEEP.match(name) or path.startswith(
                    "/sys/kernel/mm/hugepages"):
                found.extend(_collect(root, "%s/%s" % (path, name), descend, depth + 1))
        return found
    return [path] if os.path.isfile(real) else []


def capture(root, out_path):
    count = 0
    now = time.time()
    with tarfile.open(out_path, "w:gz") as tar:
        for path in walk(root):
            real = root.join(path)
            info = tarfile.TarInfo(path.lstrip("/"))
            info.mtime = now
            if os.path.islink(real):
                info.type = tarfile.SYMTYPE
                info.linkname = os.readlink(real)
                tar.addfile(info)
                count += 1
                continue
            try:
                with open(real, "rb") as f:
                    data = f.read()
            except OSError:
                continue  # write-only or refused attributes: nothing to plan from
            st = os.stat(real)
            info.size = len(data)
            info.mode = st.st_mode & 0o777 or 0o644
            tar.addfile(info, io.BytesIO(data))
            count += 1
    return count
