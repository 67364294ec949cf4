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

# (directory, name regex, descend into matching subdirectories). Regexes are
# POSIX ERE ([0-9], no \\d) so the standalone sh script can use them with grep -E.
PATTERNS = [
    ("/proc", r"^(cmdline|meminfo|cpuinfo|version|mounts|interrupts)$", False),
    ("/proc/sys/kernel", r"^(osrelease|hostname|numa_balancing|sched_.*|shm.*|sem)$", False),
    ("/proc/sys/vm", r".*", False),
    ("/proc/sys/net/core", r"^(rmem_.*|wmem_.*|netdev_max_backlog|somaxconn)$", False),
    ("/proc/sys/net/ipv4", r"^(tcp_rmem|tcp_wmem|ip_local_port_range|ipfrag_high_thresh|ipfrag_low_thresh)$",
     False),
    ("/proc/net", r"^route$", False),
    ("/etc/sysconfig/network-scripts", r"^ifcfg-", False),
    ("/etc/NetworkManager/system-connections", r"\.nmconnection$", False),
    ("/etc/systemd/network", r"\.link$", False),
    ("/sys/devices/system/node", r"^(online|possible|has_cpu|has_memory|has_normal_memory|node[0-9]+)$", True),
    ("/sys/devices/system/cpu", r"^(online|possible|present|offline|isolated|nohz_full|cpu[0-9]+|cpufreq|cpuidle)$",
     True),
    # cpusets: v1 wherever it is mounted (RHEL 6: /cgroup/cpuset), v2 slices; libcgroup and slice files.
    ("/sys/fs/cgroup/cpuset", r".*", True),
    ("/cgroup/cpuset", r".*", True),
    ("/sys/fs/cgroup", r"^(cgroup\.(controllers|subtree_control|procs)|cpuset\..*|.*\.slice)$", True),
    ("/etc/cgconfig.d", r"\.conf$", False),
    ("/etc/systemd/system", r"\.slice$", False),
    ("/etc/systemd/system/multi-user.target.wants", r"^(numad|irqbalance|tuned)\.service$", False),
    ("/etc/tuned", r".*", True),
    ("/usr/lib/tuned", r".*", True),
    ("/sys/kernel/mm/transparent_hugepage", r"^(enabled|defrag)$", False),
    ("/sys/kernel/mm/redhat_transparent_hugepage", r"^(enabled|defrag)$", False),
    ("/sys/kernel/mm/hugepages", r".*", True),
    ("/etc", r"^(os-release|redhat-release|oracle-release|system-release|hostname|sysctl\.conf|oratab|"
             r"passwd|group|cgconfig\.conf)$", False),
    ("/etc/sysctl.d", r"\.conf$", False),
    ("/run/sysctl.d", r"\.conf$", False),
    ("/usr/lib/sysctl.d", r"\.conf$", False),
    ("/etc/default", r"^grub$", False),
    ("/etc/kernel", r"^cmdline$", False),
    ("/boot/loader/entries", r"\.conf$", False),
    ("/boot/grub2", r"^(grub\.cfg|grubenv)$", False),
    ("/boot/efi/EFI", r".*", True),
    ("/etc/numatune", r".*", True),
    ("/etc/security", r"^limits\.conf$", False),
    ("/etc/security/limits.d", r"\.conf$", False),
    # Block devices: the udev database (ID_*, DM_* properties), numatune's
    # rules and multipath.conf; the sysfs side is facts.block.snapshot_paths.
    ("/run/udev/data", r"^b[0-9]+:[0-9]+$", False),
    ("/etc/udev/rules.d", r"^90-numatune\.rules$", False),
    ("/etc", r"^multipath\.conf$", False),
]
# Below each ORACLE_HOME in /etc/oratab: the parameter files Oracle reads at
# startup and orabasetab (where ORACLE_BASE, and so the alert log, is).
ORACLE_HOME_PATTERNS = [("dbs", r"^(init|spfile).*\.ora$"), ("install", r"^orabasetab$")]
# Below a descended directory only these names matter; the rest of sysfs is
# large and never read. Directories in KEEP_ALL keep everything.
KEEP = (r"^(cpulist|cpumap|meminfo|distance|hugepages|hugepages-[0-9]+kB|nr_hugepages|free_hugepages|"
        r"surplus_hugepages|topology|physical_package_id|core_id|die_id|thread_siblings_list|"
        r"core_siblings_list|online|cpufreq|cpuidle|scaling_governor|scaling_driver|"
        r"scaling_available_governors|current_driver|state[0-9]+|name|latency|disable|"
        r"policy[0-9]+|affected_cpus|current_governor|current_governor_ro|"
        r"cpuset\.[a-z_.]+|tasks|cgroup\.(procs|controllers|subtree_control)|"
        r"grub\.cfg|grubenv|.*\.(toml|conf))$")
KEEP_ALL = ("/sys/kernel/mm/hugepages", "/etc/numatune", "/boot/efi/EFI", "/etc/tuned", "/usr/lib/tuned")
MAX_DEPTH = 5


def walk(root):
    """Host paths (files and symlinks) a snapshot holds, sorted."""
    out = []
    keep = re.compile(KEEP)
    for directory, pattern, descend in PATTERNS + oracle_patterns(root):
        rx = re.compile(pattern)
        for name in root.listdir(directory):
            if rx.search(name):
                out.extend(_collect(root, "%s/%s" % (directory, name), descend, keep, 1))
    return sorted(set(out))


def oracle_patterns(root):
    from numatune.families.oracle import oratab
    homes = sorted({t["home"] for t in oratab.parse(root.read_text(oratab.ORATAB))})
    return [("%s/%s" % (home, sub), pattern, False) for home in homes for sub, pattern in ORACLE_HOME_PATTERNS]


def _collect(root, path, descend, keep, depth):
    real = root.join(path)
    if os.path.islink(real) and not os.path.isdir(real):
        return [path]
    if os.path.isdir(real):
        if not descend or depth > MAX_DEPTH or os.path.islink(real):
            return []
        found = []
        keep_all = path.startswith(KEEP_ALL)
        for name in root.listdir(path):
            if keep_all or keep.search(name):
                found.extend(_collect(root, "%s/%s" % (path, name), descend, keep, depth + 1))
        return found
    return [path] if os.path.isfile(real) else []


def sh_patterns():
    """The pattern block of packaging/numatune-snapshot.sh, generated from PATTERNS."""
    lines = ["KEEP='%s'" % KEEP, "KEEP_ALL='%s'" % " ".join(KEEP_ALL), "MAX_DEPTH=%d" % MAX_DEPTH,
             "capture_all() {"]
    for directory, pattern, descend in PATTERNS:
        lines.append("    capture '%s' '%s' %d" % (directory, pattern, 1 if descend else 0))
    lines.append("    oracle_homes | while IFS= read -r home; do")
    for sub, pattern in ORACLE_HOME_PATTERNS:
        lines.append("        capture \"$home/%s\" '%s' 0" % (sub, pattern))
    lines.append("    done")
    lines.append("}")
    # The second field of /etc/oratab lines, as numatune.families.oracle.oratab reads them.
    lines.append("oracle_homes() {")
    lines.append("    [ -f \"$SRC/etc/oratab\" ] || return 0")
    lines.append("    sed -e 's/#.*//' \"$SRC/etc/oratab\" | awk -F: 'NF >= 2 && $1 ~ /^[A-Za-z+]/ && $2 ~ /^\\// "
                 "{ sub(/\\/+$/, \"\", $2); print $2 }' | sort -u")
    lines.append("}")
    return "\n".join(lines) + "\n"


def sync_sh(path):
    """Rewrite the block between the markers; True if it changed."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin, end = "# BEGIN PATTERNS (generated by numatune.snapshot)\n", "# END PATTERNS\n"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    new = head + begin + sh_patterns() + end + tail
    if new != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new)
    return new != text


def capture(root, out_path):
    count = 0
    now = time.time()
    paths, generated = walk(root), {}
    if root.is_live:
        # NIC sysfs files behind /sys/class/net symlinks and the ethtool
        # file (numatune.families.network.facts documents it): live hosts only.
        from numatune.families.network.facts import snapshot_extra
        more, generated = snapshot_extra(root)
        paths = sorted(set(paths) | set(more))
    if root.is_live:
        # Block devices behind /sys/block links, as facts.block reads them.
        from numatune.families.storage.facts import snapshot_paths
        paths = sorted(set(paths) | set(snapshot_paths(root)))
    with tarfile.open(out_path, "w:gz") as tar:
        for name, data in generated.items():
            info = tarfile.TarInfo(name)
            info.mtime, info.size, info.mode = now, len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
            count += 1
        for path in paths:
            real = root.join(path)
            info = tarfile.TarInfo(path.lstrip("/"))
            info.mtime = now
            # procfs links (/proc/mounts -> self/mounts) would dangle in a
            # copy: keep what they show. Other links (sysctl.d) stay links.
            if os.path.islink(real) and not path.startswith("/proc/"):
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


if __name__ == "__main__":
    import sys
    # python -m numatune.snapshot --sync-sh packaging/numatune-snapshot.sh
    if sys.argv[1:2] == ["--sync-sh"]:
        print("updated" if sync_sh(sys.argv[2]) else "in step")
