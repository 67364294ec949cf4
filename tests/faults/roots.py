"""The roots the fault campaign runs on (tests/faults/campaign.py), each a
pristine tree built once, a policy and the arguments apply takes:

``fakehost``   the test fake host (sysctl.d files, BLS entries, grubenv,
               /etc/default/grub, /proc/sys and /sys values): file and value writes
``superdome``  a real 8-node capture (4 sockets x 2 nodes) with 3PAR LUNs over two
               paths, multipath.conf, the fake host's BLS boot files and the shipped
               superdome-oracle policy (sysctl, kernel, cpu, hugepages, block,
               multipath): file, value, blockattr and multipath writes
``bls-odd``    the fake host with odd owners and modes on every file apply edits
               (uid/gid 4242/4343, 0600, 0444, 0640), which revert must put back
``writes``     the fake host with a cgroup v1 cpuset hierarchy, per-node HugePages
               and more sysctls: two new cpusets (cgroup directories and their
               control files, cpuset.memory_migrate, libcgroup's cgconfig.conf),
               a pool placed on both nodes, eight sysctls live and in sysctl.d,
               the boot files
``ethtool``    a real 2-node capture with NICs and an offline ethtool snapshot
               (tests/test_net_plan.py), ``--only network``: the snapshot's
               ``numatune-snapshot/ethtool.json`` written through its temporary
"""
import os
import shutil
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

import fakehost  # noqa: E402
from conftest import CAPTURES, _unpack, install_numatune, write  # noqa: E402

SUPERDOME = "32amd64-4s2n4c-cgroup2"


def _fakehost(work):
    root = fakehost.build(work / "pristine")
    return root, str(write(work, "policy.toml", fakehost.POLICY)), ()


def _superdome(work):
    from block_fixture import san_host
    root = work / "pristine"
    shutil.copytree(_unpack(SUPERDOME, work / "capture"), root, symlinks=True)
    san_host(root, luns=2, paths=2, multipath_conf="defaults {\n\tuser_friendly_names yes\n}\n")
    for key, value in (("core/rmem_max", "212992"), ("core/wmem_max", "212992"),
                       ("ipv4/tcp_rmem", "4096\t131072\t6291456"), ("ipv4/tcp_wmem", "4096\t16384\t4194304")):
        write(root, "/proc/sys/net/" + key, value + "\n")     # the capture kept no net sysctls
    boot = fakehost.build(work / "boot-donor")
    shutil.copytree(boot / "boot", root / "boot", symlinks=True)
    os.makedirs(root / "etc/default", exist_ok=True)
    shutil.copy(boot / "etc/default/grub", root / "etc/default/grub")
    shutil.rmtree(boot)
    install_numatune(root)      # as the RPM installs it: the governor's boot replay can be kept
    return root, "superdome-oracle", ()


ODD = {"etc/sysctl.d/99-oracle-database-preinstall-19c-sysctl.conf": (0o640, 0, 4343),
       "boot/grub2/grubenv": (0o600, 4242, 4343),
       "etc/default/grub": (0o444, 4242, 0),
       "usr/lib/sysctl.d/50-default.conf": (0o600, 4242, 4242)}


def _bls_odd(work):
    root, policy, extra = _fakehost(work)
    for entry in (root / "boot/loader/entries").iterdir():
        ODD["boot/loader/entries/" + entry.name] = (0o600, 4242, 4343)
    os.chmod(root / "etc/sysctl.d", 0o750)
    os.chown(root / "etc/sysctl.d", 0, 4343)
    for rel, (mode, uid, gid) in ODD.items():
        os.chown(root / rel, uid, gid)
        os.chmod(root / rel, mode)
    return root, policy, extra


def _ethtool(work):
    from test_net_plan import CAPTURE, POLICY, build
    root = work / "pristine"
    shutil.copytree(_unpack(CAPTURE, work / "capture"), root, symlinks=True)
    build(root)
    return root, str(write(work, "net.toml", POLICY)), ("--only", "network")


WRITES_SYSCTL = {"vm/dirty_background_ratio": ("10", 3), "vm/dirty_ratio": ("20", 15),
                 "kernel/shmmni": ("4096", 8192), "kernel/sem": ("32000\t1024000000\t500\t32000", "250 32000 100 128"),
                 "fs/aio-max-nr": ("65536", 1048576), "vm/min_free_kbytes": ("67584", 135168)}
WRITES_POLICY = """
[policy]
name = "writes"
extends = ["oracle-numa"]

[sysctl]
"vm.swappiness" = 10
"net.ipv4.tcp_rmem" = "4096 87380 16777216"
%s
[hugepages]
size = "2M"
count = 200
placement = { 0 = 120, 1 = 80 }

[[cpuset]]
name = "ora1"
nodes = [0]

[[cpuset]]
name = "ora2"
nodes = [1]
memory_migrate = true
"""


def _writes(work):
    from test_cpuset import cgroup_v1
    root = fakehost.build(work / "pristine")
    cgroup_v1(root)
    # libcgroup's file, with a group of the admin's: the cpusets persist there, beside it.
    write(root, "/etc/cgconfig.conf", "# libcgroup\ngroup backup {\n\tperm {\n\t\ttask { uid = 0; }\n"
                                      "\t\tadmin { uid = 0; }\n\t}\n\tcpuset {\n\t\tcpuset.cpus = \"0\";\n"
                                      "\t\tcpuset.mems = \"0\";\n\t}\n}\n", mode=0o644)
    lines = ""
    for key, (now, want) in WRITES_SYSCTL.items():
        write(root, "/proc/sys/" + key, now + "\n")
        lines += '"%s" = %s\n' % (key.replace("/", "."), want if isinstance(want, int) else '"%s"' % want)
    return root, str(write(work, "policy.toml", WRITES_POLICY % lines)), ()


BUILD = {"fakehost": _fakehost, "superdome": _superdome, "bls-odd": _bls_odd, "ethtool": _ethtool, "writes": _writes}


def available():
    """The roots this checkout can build (the 8-node capture may be absent)."""
    from test_net_plan import CAPTURE
    return [name for name in BUILD if {"superdome": SUPERDOME, "ethtool": CAPTURE}.get(name, SUPERDOME) in CAPTURES]
