"""Hosts that plan each write kind, for tests/test_rollback_faults.py: the
hosts the kind's own tests use (copied trees, loop devices, a veth pair in a
namespace, a fake database connection), each run through the CLI with
fault_inject armed.

A host class registers for the kinds it plans with ``@host(kind, ...)``; a
new write kind needs one (test_every_write_kind_has_a_fault_injection_case).
"""
import json
import os
import subprocess
import sys
import time

import pytest

import fakehost
import fault_inject
from conftest import REPO, LiveCopy, tree_digest, write

HOSTS = {}


def host(*kinds_):
    def register(cls):
        for kind in kinds_:
            HOSTS.setdefault(kind, []).append(cls)
        return cls
    return register


def overlap(a, b):
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _op_paths(op):
    """The host paths an op may change, journaled or derived."""
    if op["kind"] == "command":
        return set(op["before"])
    if op["kind"] == "file":
        return {op["path"]} | set(op.get("created_dirs", []))
    if op["kind"] == "blockattr":
        return {op["path"]} | set(op.get("coupled", {}))
    if op["kind"] == "netdev" and op.get("file"):
        return {op["file"]}
    return {op["path"]}


class TreeHost:
    """A copied tree, numatune run in-process with --root."""
    extra = ()
    live_only = False

    def __init__(self, kind, tmp_path, cli, monkeypatch, request):
        self.kind, self.tmp, self._cli, self.mp, self.request = kind, tmp_path, cli, monkeypatch, request
        self.dir = tmp_path / "root"
        self.policy = self.build()

    def build(self):
        fakehost.build(self.dir)
        return write(self.tmp, "policy.toml", fakehost.POLICY)

    def run(self, *args, inject=None):
        with self.mp.context() as m:
            log = fault_inject.arm(m.setattr, self.kind, *inject) if inject else None
            status, out, err = self._cli(*(args + ("--root", str(self.dir))))
        return status, out, err, log

    def plan(self):
        status, out, err, _ = self.run("plan", "--policy", self.policy, "--format", "json", *self.extra)
        assert status == 0, err
        return [c for c in json.loads(out)["changes"] if c["scope"] == "live" or not self.live_only]

    def apply(self, inject):
        live = ("--live-only",) if self.live_only else ()
        return self.run("apply", "--yes", "--policy", self.policy, *(self.extra + live), inject=inject)

    def state(self):
        return tree_digest(self.dir)

    def touched(self, op):
        """State keys ``op`` may change (tree paths, resolved like the kernel's links)."""
        out = set()
        for path in _op_paths(op):
            real = os.path.realpath(str(self.dir) + path)
            out.add(os.path.relpath(real, str(self.dir)))
        return lambda key: any(overlap(key, p) for p in out)

    @staticmethod
    def write_key(w):
        """What a planned write targets, to pick one no earlier write shares."""
        if w["kind"] == "command":
            return set(w["files"])
        if w["kind"] == "netdev":
            return {"%s/#%s" % (w["path"], w["args"]["group"])}
        return {w["path"]} | set((w.get("args") or {}).get("coupled", []))


@host("value", "file")
class FakeHost(TreeHost):
    pass


@host("command")
class GrubbyHost(TreeHost):
    """grubby runs only on the real root: a copy that says it is live, and a
    stand-in grubby on PATH that edits the copy's grubenv as grubby does."""
    extra = ("--only", "kernel")
    GRUBBY = r'''#!%s
import os, sys
add, remove = [], []
for a in sys.argv[1:]:
    if a.startswith("--args="):
        add = a[len("--args="):].split()
    elif a.startswith("--remove-args="):
        remove = a[len("--remove-args="):].split()
path = os.environ["NUMATUNE_TEST_ROOT"] + "/boot/grub2/grubenv"
lines = open(path).read().rstrip("#").splitlines()
for i, line in enumerate(lines):
    if line.startswith("kernelopts="):
        args = [x for x in line[len("kernelopts="):].split() if x not in remove and x.split("=")[0] not in remove]
        lines[i] = "kernelopts=" + " ".join(args + add)
data = "\n".join(lines) + "\n"
open(path, "w").write(data + "#" * (1024 - len(data)))
'''

    def build(self):
        policy = super().build()
        bindir = self.tmp / "bin"
        bindir.mkdir()
        (bindir / "grubby").write_text(self.GRUBBY % sys.executable)
        (bindir / "grubby").chmod(0o755)
        self.mp.setenv("PATH", "%s:%s" % (bindir, os.environ["PATH"]))
        self.mp.setenv("NUMATUNE_TEST_ROOT", str(self.dir))
        from numatune.rootfs import given
        self.mp.setattr(given, "Root", LiveCopy)
        return policy


@host("sql")
class OracleHost(TreeHost):
    """ALTER SYSTEM over a fake connection (tests/oracle_fakes.py) on a copy
    that says it is live."""
    extra = ("--only", "oracle")

    def build(self):
        from oracle_fakes import FakeOracle
        from test_oracle_live import HOME, POLICY
        from numatune.rootfs import given
        from numatune.families.oracle import live, sql_write
        fakehost.build(self.dir)
        write(self.dir, "/etc/oratab", "ORCL:%s:Y\n" % HOME)
        self.db = FakeOracle(
            memory={"cpu_count": ("2", "IMMEDIATE"), "resource_manager_plan": ("", "IMMEDIATE"),
                    "processes": ("300", "FALSE"), "sga_target": ("4294967296", "IMMEDIATE")},
            spfile={("*", "cpu_count"): ["2"], ("*", "processes"): ["300"], ("*", "sga_target"): ["4G"]})
        self.mp.setattr(live, "FACTORY", self.db.connect)
        self.mp.setattr(sql_write, "_open", {})
        self.mp.setattr(given, "Root", LiveCopy)
        return write(self.tmp, "policy.toml", POLICY)

    def state(self):
        # What instance ORCL sees: its own spfile entry, else "*"'s (a revert
        # may set ORCL's where "*"'s was, the same value), and memory.
        out = {("tree", k): v for k, v in tree_digest(self.dir).items()}
        for name in set(n for _, n in self.db.spfile) | set(self.db.memory):
            own = self.db.spfile.get(("ORCL", name), self.db.spfile.get(("*", name)))
            out[("db", name)] = (own, self.db.memory.get(name, (None,))[0])
        return out

    def touched(self, op):
        return lambda key: key == ("db", op["name"])

    @staticmethod
    def write_key(w):
        return {w["path"]}


@host("blockattr")
class SanHost(TreeHost):
    """dm-multipath maps and their SCSI paths built in the tree (test_block_san)."""
    live_only = True

    def build(self):
        from block_fixture import san_host
        from test_block_san import POLICY
        san_host(self.dir, luns=2, paths=2)
        return write(self.tmp, "policy.toml", POLICY)


@host("multipath")
class MultipathdHost(TreeHost):
    """A SAN copy that says it is live, with the stand-in multipathd
    (block_fixture.stand_in_multipathd): multipath.conf and its reconfigure
    as one op, after a sysctl write and before the maps' queue writes."""
    extra = ()

    def build(self):
        from block_fixture import san_host, stand_in_multipathd
        from numatune.rootfs import given
        san_host(self.dir, luns=2, paths=2, multipath_conf="defaults {\n\tuser_friendly_names yes\n}\n")
        write(self.dir, "/proc/sys/vm/swappiness", "60\n")
        stand_in_multipathd(self.dir, self.tmp / "mpd", self.mp.setenv)
        self.mp.setattr(given, "Root", LiveCopy)
        self.mp.setitem(sys.modules, "pyudev", None)    # the copy's sysfs, not this machine's udev
        return write(self.tmp, "policy.toml", '[sysctl]\n"vm.swappiness" = 10\n\n[[block]]\n'
                                              'match = { vendor = "3PARdata", model = "VV", kind = "dm-multipath" }\n'
                                              'read_ahead_kb = 4096\nmultipath = { rr_min_io_rq = 7 }\n')


@host("cgroup")
class CpusetHost(TreeHost):
    """Two new cpusets on a cgroup v1 hierarchy over a real NUMA capture (test_cpuset)."""
    extra = ("--only", "cpu")

    def build(self):
        from test_cpuset import cgroup_v1
        self.dir = self.request.getfixturevalue("linked")("x86_64-64cpu")
        cgroup_v1(self.dir)
        return write(self.tmp, "policy.toml", '[[cpuset]]\nname = "ora1"\nnodes = [0]\n\n'
                                              '[[cpuset]]\nname = "ora2"\nnodes = [2]\n')


def _retry_locked(run, *args, inject=None):
    """The real root's lock may be held by another engineer's run: wait."""
    for _ in range(60):
        status, out, err, log = run(*args, inject=inject)
        if not (status == 2 and "holds" in err):
            return status, out, err, log
        time.sleep(0.25)
    return status, out, err, log


@host("blockattr")
class LoopHost(TreeHost):
    """Two loop devices on the real kernel (test_block_live): one gets plain
    values, the other a scheduler switch (blockattr) and nr_requests."""
    extra = ("--only", "storage")
    live_only = True

    def build(self):
        if os.geteuid() != 0:
            pytest.skip("loop devices need root")
        from test_block_live import _state
        self._dev_state = _state
        self.a, self.b = self.request.getfixturevalue("loops")(2)
        self.dir = "/"
        if "mq-deadline" not in open("/sys/block/%s/queue/scheduler" % self.b).read():
            pytest.skip("no mq-deadline here")
        target = "mq-deadline" if self._dev_state(self.b)["scheduler"] == "none" else "none"
        return write(self.tmp, "block.toml", '[[block]]\nmatch = { name = "%s" }\nread_ahead_kb = 512\n'
                                             'nomerges = 1\n\n[[block]]\nmatch = { name = "%s" }\n'
                                             'scheduler = "%s"\nnr_requests = 32\n' % (self.a, self.b, target))

    def run(self, *args, inject=None):
        return _retry_locked(super().run, *args, inject=inject)

    def state(self):
        return {(n, k): v for n in (self.a, self.b) for k, v in self._dev_state(n).items()}

    def touched(self, op):
        paths = _op_paths(op)
        return lambda key: any(p.startswith("/sys/block/%s/queue/" % key[0]) and p.endswith("/" + key[1])
                               for p in paths)


DRIVER = """
import json, sys
sys.path.insert(0, %r)
import fault_inject
from numatune.cli import main
spec, log_path = json.loads(sys.argv[1]), sys.argv[2]
log = fault_inject.arm(setattr, *spec) if spec else None
try:
    status = main(sys.argv[3:])
finally:
    with open(log_path, "w") as f:
        json.dump(log, f)
sys.exit(status)
""" % str(REPO / "tests")


@host("netdev")
class VethHost(TreeHost):
    """A veth pair in a namespace of our own (test_net_live): MTU over
    rtnetlink, channels over ethtool, numatune run inside through a driver
    that arms the fault."""

    def build(self):
        pytest.importorskip("pyroute2")
        if os.geteuid() != 0:
            pytest.skip("network namespaces need root")
        from test_net_live import Netns
        self.ns = Netns(self.tmp)
        self.request.addfinalizer(self.ns.close)
        self.dir = "/"
        return write(self.tmp, "veth.toml", '[[net]]\nmatch = { name = "%s" }\nmtu = 9000\n'
                                            'channels = { rx = 2, tx = 2 }\n' % self.ns.a)

    def run(self, *args, inject=None):
        log_path = self.tmp / "fault-log.json"
        argv = self.ns.argv("-c", DRIVER, json.dumps([self.kind] + list(inject) if inject else None), log_path,
                            *args)
        proc = subprocess.run(argv, capture_output=True, text=True, env=self.ns.env(), cwd=str(REPO), timeout=120)
        return proc.returncode, proc.stdout, proc.stderr, json.loads(log_path.read_text())

    def state(self):
        return self.ns.link(self.ns.a)

    def touched(self, op):
        keys = {"mtu"} if op["group"] == "mtu" else {"rx", "tx"}
        return lambda key: key in keys
