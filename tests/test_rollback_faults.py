"""Rollback that survives any error (issue #12), for every write kind.

Each kind is driven by a real plan that uses it (the hosts the kind's own
tests use: copied trees, loop devices, a veth pair in a namespace, a fake
database connection), and fault_inject hooks one of its writes:

perform  it fails before it lands, after earlier writes succeeded: the host
         ends exactly as it was.
restore  it lands, the run then fails, and undoing it raises the kind's own
         non-OSError (NetlinkError, DatabaseError, RuntimeError...): every
         other write is still undone, the journal records which undo failed,
         the CLI says so on one line and exits 1, `history` shows it and
         `revert` finishes the job.
"""
import errno
import json
import os
import re
import sys

import pytest

import fakehost
import fault_inject
from conftest import REPO, tree_digest, write
from numatune import engine
from numatune.apply import kinds
from numatune.apply.journal import list_transactions
from numatune.errors import ApplyError
from numatune.root import Root
from test_block_live import loops  # noqa: F401 -- fixture: loop devices, restored after
from test_cpuset import linked  # noqa: F401 -- fixture: a root over a real NUMA capture

HOSTS = {}


def host(*kinds_):
    def register(cls):
        for kind in kinds_:
            HOSTS.setdefault(kind, []).append(cls)
        return cls
    return register


class LiveCopy(Root):
    """A copied tree that says it is the live root (host tools and SQL run
    only there); every path still maps into the copy."""

    def __init__(self, path):
        super().__init__(path)
        self.is_live = True

    def join(self, path):
        return self.path + path

    def rel(self, real_path):
        return real_path[len(self.path):] or "/"


def _overlap(a, b):
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

    def root(self):
        return Root(str(self.dir))

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
        return lambda key: any(_overlap(key, p) for p in out)

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
        from numatune import commands
        self.mp.setattr(commands, "Root", LiveCopy)
        return policy


@host("sql")
class OracleHost(TreeHost):
    """ALTER SYSTEM over a fake connection (tests/oracle_fakes.py) on a copy
    that says it is live."""
    extra = ("--only", "oracle")

    def build(self):
        from oracle_fakes import FakeOracle
        from test_oracle_live import HOME, POLICY
        from numatune import commands
        from numatune.families.oracle import live, sql_write
        fakehost.build(self.dir)
        write(self.dir, "/etc/oratab", "ORCL:%s:Y\n" % HOME)
        self.db = FakeOracle(
            memory={"cpu_count": ("2", "IMMEDIATE"), "resource_manager_plan": ("", "IMMEDIATE"),
                    "processes": ("300", "FALSE"), "sga_target": ("4294967296", "IMMEDIATE")},
            spfile={("*", "cpu_count"): ["2"], ("*", "processes"): ["300"], ("*", "sga_target"): ["4G"]})
        self.mp.setattr(live, "FACTORY", self.db.connect)
        self.mp.setattr(sql_write, "_open", {})
        self.mp.setattr(commands, "Root", LiveCopy)
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
    import time
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
        import subprocess
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


CASES = [(kind, cls) for kind in sorted(HOSTS) for cls in HOSTS[kind]]


@pytest.fixture(params=CASES, ids=["%s-%s" % (k, c.__name__) for k, c in CASES])
def case(request, tmp_path, cli, monkeypatch):
    kind, cls = request.param
    return cls(kind, tmp_path, cli, monkeypatch, request)


@pytest.mark.parametrize("kind", sorted(kinds.KINDS))
def test_every_write_kind_has_a_fault_injection_case(kind):
    """A new write kind must come with a host here that plans it."""
    assert HOSTS.get(kind), "no fault-injection host in %s plans a %r write" % (__file__, kind)


def _target(h):
    """The last write of the host's kind that has writes before it and
    shares its target with none of them: (its rank among writes of its kind,
    the planned write). Sharing would let an older undo put its target back."""
    writes = [w for c in h.plan() for w in c["writes"]]
    seen, rank, found = set(), 0, None
    for i, w in enumerate(writes):
        keys = h.write_key(w)
        if w["kind"] == h.kind:
            rank += 1
            if i > 0 and not any(_overlap(k, s) for k in keys for s in seen):
                found = (rank, w)
        seen |= keys
    assert found, "the plan has no %s write after another write: %r" % (h.kind, writes)
    return found


def _txid(err):
    m = re.search(r"of transaction (\S+?)[;:,\s]", err)
    assert m, err
    return m.group(1)


def _records(h, txid):
    status, out, err, _ = h.run("history", txid, "--format", "json")
    assert status == 0, err
    return json.loads(out)["records"]


def _one_line_error(status, out, err):
    assert status == 1, out + err
    assert err.startswith("numatune: ") and err.count("\n") == 1, err
    assert "Traceback" not in out + err


def _hooked(case, records, rank):
    """The hooked op's intent: perform runs once per intent, in order."""
    intents = [r for r in records if r["t"] == "intent"]
    mine = [r for r in intents if r["op"]["kind"] == case.kind]
    assert len(mine) >= rank, mine
    return intents, mine[rank - 1]


def test_a_failing_write_rolls_back_every_earlier_write(case):
    rank, planned = _target(case)
    before = case.state()
    status, out, err, log = case.apply(inject=(rank, "perform"))
    assert log["target"] is not None and log["target"]["path"] == planned["path"], log
    _one_line_error(status, out, err)
    records = _records(case, _txid(err))
    intents, target = _hooked(case, records, rank)
    assert target["seq"] == len(intents) > 1, "the hooked write must come after others"
    assert "rolled back %d write(s)" % len(intents) in err and "ROLLBACK FAILED" not in err
    name, message = log["error"]
    assert name == "OSError" or "%s: %s" % (name, message.splitlines()[0]) in err  # which layer refused
    assert case.state() == before
    assert not [r for r in records if r["t"] == "failed"]
    assert {r["seq"] for r in records if r["t"] == "undone"} == {r["seq"] for r in intents}


def test_an_undo_that_raises_does_not_stop_the_others(case):
    rank, planned = _target(case)
    before = case.state()
    status, out, err, log = case.apply(inject=(rank, "restore"))
    assert log["restores"] == 1, log
    _one_line_error(status, out, err)
    txid = _txid(err)
    records = _records(case, txid)
    intents, target = _hooked(case, records, rank)
    assert target["seq"] == len(intents) > 1, "the hooked write must come after others"
    what = kinds.KINDS[case.kind].describe(target["op"])
    name, message = log["error"]
    assert name != "OSError" and not issubclass(type(fault_inject.error(case.kind, "restore")), OSError)
    error = "%s: %s" % (name, " / ".join(line for line in message.splitlines()))
    assert "injected failure after the write; rolled back %d write(s)" % (len(intents) - 1) in err
    assert "ROLLBACK FAILED for %s (%s)" % (what, error) in err
    assert "numatune history %s" % txid in err and "numatune revert %s" % txid in err

    # The journal names the failed undo; every other write was undone after it.
    failed = [r for r in records if r["t"] == "failed"]
    assert failed == [{"t": "failed", "seq": target["seq"], "error": error, "what": what}]
    undone = [r["seq"] for r in records if r["t"] == "undone"]
    assert sorted(undone) == [r["seq"] for r in intents if r["seq"] != target["seq"]]
    assert records[-1]["t"] == "undo-end" and records[-1]["failed"] == 1
    # ...and on the host: only what the failed undo would have put back differs.
    now = case.state()
    changed = {k for k in set(now) | set(before) if now.get(k) != before.get(k)}
    touched = case.touched(target["op"])
    assert changed and all(touched(k) for k in changed), changed

    status, out, err, _ = case.run("history", txid)
    assert status == 0, err
    assert "partly reverted" in out
    assert "UNDO FAILED (rollback) #%d %s: %s\n" % (target["seq"], what, error) in out

    # Once the cause is gone, revert puts back exactly the one that failed.
    status, out, err, _ = case.run("revert", txid)
    assert status == 0, out + err
    assert "1 restored, 0 left alone, 0 failed" in out
    assert case.state() == before
    status, out, err, _ = case.run("history", txid)
    assert "UNDO FAILED (rollback) #%d %s: %s; undone since" % (target["seq"], what, error) in out
