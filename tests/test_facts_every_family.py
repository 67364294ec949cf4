"""`numatune facts` says what the host has whatever the policy: a mounted
cpuset hierarchy without [[cpuset]], RHEL 6's THP with its defrag value, and
threads per core from the cpumask files of kernels older than the _list
files (ia64 on RHEL 5)."""
from conftest import write

POLICY_WITHOUT_CPUSETS = "oracle-numa"


def test_a_mounted_cpuset_hierarchy_is_shown_without_cpuset_rules(tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/mounts", "cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n")
    write(root, "/sys/fs/cgroup/cpuset/cpuset.cpus", "0-3\n")
    write(root, "/sys/fs/cgroup/cpuset/cpuset.mems", "0-1\n")
    write(root, "/sys/fs/cgroup/cpuset/oracle/cpuset.cpus", "2-3\n")
    write(root, "/sys/fs/cgroup/cpuset/oracle/cpuset.mems", "1\n")
    status, out, err = cli("facts", "--root", root, "--policy", POLICY_WITHOUT_CPUSETS)
    assert status == 0, err
    assert "no cpuset hierarchy mounted" not in out
    assert "cpusets: cgroup v1 at /sys/fs/cgroup/cpuset (CPUs 0-3, memory nodes 0-1)" in out


def test_rhel6_thp_says_its_defrag_value(tmp_path, cli):
    root = tmp_path / "root"
    base = "/sys/kernel/mm/redhat_transparent_hugepage/"
    write(root, base + "enabled", "[always] madvise never\n")
    write(root, base + "defrag", "always madvise [never]\n")
    status, out, err = cli("facts", "--root", root)
    assert status == 0, err
    assert "THP:       always, defrag never (/sys/kernel/mm/redhat_transparent_hugepage)" in out


def test_threads_per_core_from_cpumask_files(tmp_path, cli):
    """Two cores of two threads, told only by thread_siblings masks, as a
    2.6.18 kernel's sysfs has them."""
    root = tmp_path / "root"
    write(root, "/sys/devices/system/cpu/online", "0-3\n")
    for cpu, core, mask in ((0, 0, "00000000,00000005"), (1, 1, "00000000,0000000a"),
                            (2, 0, "00000000,00000005"), (3, 1, "00000000,0000000a")):
        base = "/sys/devices/system/cpu/cpu%d/topology/" % cpu
        write(root, base + "physical_package_id", "0\n")
        write(root, base + "core_id", "%d\n" % core)
        write(root, base + "thread_siblings", mask + "\n")
    status, out, err = cli("facts", "--root", root)
    assert status == 0, err
    assert "CPUs:      4 online, 1 socket(s), 2 core(s), 2 thread(s) per core" in out
