"""Apply, fail, roll back, revert: the journal's promises.

A property test applies random policies to a fake root and fails the run at a
random write (before or after the write lands); the tree must come back
unchanged. Other tests: verify failure, revert conflicts, --force, the lock,
saved plans and drift."""
import errno
import json
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fakehost
from conftest import tree_digest, write
from numatune.apply import value as values
from numatune import engine
from numatune.errors import ApplyError
from numatune.apply.journal import list_transactions
from numatune.apply.lock import RunLock
from numatune.policy.stack import load
from numatune.root import Root
from numatune.apply.transaction import revert

SYSCTLS = {"kernel.numa_balancing": ["0", "1"], "vm.zone_reclaim_mode": ["0", "1", "3"],
           "vm.swappiness": ["1", "10", "60"], "net.ipv4.tcp_rmem": ["4096 87380 16777216", "4096 131072 6291456"]}


@st.composite
def policies(draw):
    lines = ["[policy]", 'name = "random"']
    foreign = draw(st.sampled_from(["edit", "report"]))
    lines.append('foreign_files = "%s"' % foreign)
    keys = draw(st.lists(st.sampled_from(sorted(SYSCTLS)), unique=True))
    if keys:
        lines.append("[sysctl]")
        for key in keys:
            lines.append('"%s" = "%s"' % (key, draw(st.sampled_from(SYSCTLS[key]))))
    thp = draw(st.sampled_from([None, "always", "madvise", "never"]))
    absent = draw(st.lists(st.sampled_from(["numa=off", "crashkernel", "quiet"]), unique=True, max_size=2))
    present = draw(st.lists(st.sampled_from(["elevator=deadline", "nosoftlockup", "audit=0"]), unique=True,
                            max_size=2))
    lines.append("[kernel]")
    if thp:
        lines.append('transparent_hugepage = "%s"' % thp)
    lines.append("[kernel.cmdline]")
    lines.append("absent = %s" % json.dumps(absent))
    lines.append("present = %s" % json.dumps(present))
    if draw(st.booleans()):
        lines += ["[hugepages]", 'size = "2M"', "count = %d" % draw(st.integers(0, 3000))]
    return "\n".join(lines) + "\n"


class Boom(OSError):
    pass


def _inject(monkeypatch, fail_at, after_write):
    """Make the fail_at-th write of any kind raise, before or after it lands."""
    def boom(message):
        raise Boom(errno.EIO, message)
    return fakehost.hook_nth_write(monkeypatch.setattr, fail_at, after_write, boom)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=policies(), fail_at=st.integers(1, 25), after_write=st.booleans())
def test_random_policy_random_fault_rolls_back_exactly(text, fail_at, after_write, monkeypatch):
    with tempfile.TemporaryDirectory() as tmp:
        root_dir = fakehost.build(tmp + "/root")
        policy_path = write(tmp, "policy.toml", text)
        before = tree_digest(root_dir)
        root = Root(str(root_dir))
        policy = load([str(policy_path)], root)
        plan, _ = engine.make_plan(root, policy)
        with monkeypatch.context() as m:
            calls = _inject(m, fail_at, after_write)
            try:
                txid, ops, _ = engine.apply(root, policy, plan.changes)
            except ApplyError as e:
                assert "injected failure" in str(e)
                assert tree_digest(root_dir) == before
                [tx] = list_transactions(root)
                assert tx.state == "rolled back"
                return
        assert calls["n"] < fail_at
        replan, _ = engine.make_plan(root, policy)
        assert replan.changes == []
        [tx] = list_transactions(root)
        restored, skipped, failed = revert(root, tx)
        assert (skipped, failed) == ([], [])
        assert tree_digest(root_dir) == before


@pytest.fixture
def host(tmp_path):
    root_dir = fakehost.build(tmp_path / "root")
    policy_path = write(tmp_path, "policy.toml", fakehost.POLICY)
    root = Root(str(root_dir))
    return root_dir, root, load([str(policy_path)], root), policy_path


def test_refused_write_rolls_back_earlier_writes(host):
    root_dir, root, policy, _ = host
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    # A directory where a sysctl file should be: the kernel-style refusal, mid-run.
    target = root_dir / "proc/sys/net/ipv4/tcp_rmem"
    target.unlink()
    target.mkdir()
    before = tree_digest(root_dir)
    with pytest.raises(ApplyError) as info:
        engine.apply(root, policy, plan.changes)
    assert "net.ipv4.tcp_rmem" in str(info.value) and "rolled back" in str(info.value)
    assert tree_digest(root_dir) == before


def test_verify_failure_rolls_back(host, monkeypatch):
    root_dir, root, policy, _ = host
    before = tree_digest(root_dir)
    plan, _ = engine.make_plan(root, policy)
    # A value file that ignores writes, like a kernel clamping a value.
    real = values.perform

    def stubborn(root_, op):
        if op["path"].endswith("swappiness"):
            return
        real(root_, op)
    monkeypatch.setattr(values, "perform", stubborn)
    with pytest.raises(ApplyError) as info:
        engine.apply(root, policy, plan.changes)
    assert "verify after apply" in str(info.value) and "vm.swappiness" in str(info.value)
    assert tree_digest(root_dir) == before


def test_revert_leaves_values_changed_since_unless_forced(host, cli):
    root_dir, root, policy, policy_path = host
    before = tree_digest(root_dir)
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 0, err
    (root_dir / "proc/sys/vm/swappiness").write_text("33\n")
    status, out, err = cli("revert", "--last", "--root", root_dir)
    assert status == 1
    assert "LEFT ALONE /proc/sys/vm/swappiness" in out
    assert (root_dir / "proc/sys/vm/swappiness").read_text() == "33\n"
    assert (root_dir / "proc/sys/kernel/numa_balancing").read_text() == "1\n"
    status, out, err = cli("revert", "--last", "--force", "--root", root_dir)
    assert status == 0, out + err
    assert tree_digest(root_dir) == before


def test_second_run_is_refused_while_the_lock_is_held(host, cli):
    root_dir, root, policy, policy_path = host
    before = tree_digest(root_dir, ignore=("var/lib/numatune/lock",))
    with RunLock(root):
        status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 2
    assert err.startswith("numatune: another numatune run (pid ") and err.count("\n") == 1
    assert tree_digest(root_dir, ignore=("var/lib/numatune/lock",)) == before


def test_saved_plan_applies_exactly_and_refuses_drift(host, cli, tmp_path):
    root_dir, root, policy, policy_path = host
    saved = tmp_path / "plan.json"
    status, out, err = cli("plan", "--root", root_dir, "--policy", policy_path, "--only", "memory",
                           "--out", saved)
    assert status == 0
    (root_dir / "proc/sys/vm/swappiness").write_text("59\n")
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--plan", saved)
    assert status == 2 and "drifted" in err and "vm.swappiness" in err
    (root_dir / "proc/sys/vm/swappiness").write_text("60\n")
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--plan", saved, "--format", "json")
    assert status == 0, err
    applied = {c["id"] for c in json.loads(out)["changes"]}
    assert applied == {c["id"] for c in json.loads(saved.read_text())["changes"]}
    # Only the saved plan's area: kernel.numa_balancing is not in it.
    assert (root_dir / "proc/sys/kernel/numa_balancing").read_text() == "1\n"


def test_live_only_and_persistent_only(host, cli):
    root_dir, root, policy, policy_path = host
    status, out, err = cli("apply", "--yes", "--live-only", "--root", root_dir, "--policy", policy_path)
    assert status == 0, err
    assert (root_dir / "proc/sys/vm/swappiness").read_text() == "10\n"
    assert not (root_dir / "etc/sysctl.d/90-numatune.conf").exists()
    status, out, err = cli("apply", "--yes", "--persistent-only", "--root", root_dir, "--policy", policy_path)
    assert status == 0, err
    assert "vm.swappiness = 10" in (root_dir / "etc/sysctl.d/90-numatune.conf").read_text()
    assert b"numa=off" not in (root_dir / "boot/grub2/grubenv").read_bytes()
    assert len((root_dir / "boot/grub2/grubenv").read_bytes()) == 1024


def test_hugepages_shortfall_is_a_finding_not_success(host, cli, monkeypatch):
    """The kernel fills a pool only as far as free contiguous memory allows;
    a copied file cannot, so make node1's write land short like a fragmented node."""
    root_dir, root, policy, policy_path = host
    real = values._write

    def fragmented(root_, path, value):
        if "node1/hugepages" in path and isinstance(value, str) and value != "0":
            value = str(int(value) - 7)
        real(root_, path, value)
    monkeypatch.setattr(values, "_write", fragmented)
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 1
    assert "CRITICAL the kernel allocated 43 of 50 pages for node1 hugepages-2048kB" in out
    # The pages it did get stay (releasing them would not help), and revert still works.
    assert (root_dir / "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages").read_text() == "43\n"
    status, out, err = cli("revert", "--last", "--root", root_dir)
    assert status == 0, out + err
    assert (root_dir / "sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages").read_text() == "0\n"


def test_saved_plan_with_a_tampered_policy_is_refused(host, cli, tmp_path):
    root_dir, root, policy, policy_path = host
    saved = tmp_path / "plan.json"
    assert cli("plan", "--root", root_dir, "--policy", policy_path, "--out", saved)[0] == 0
    data = json.loads(saved.read_text())
    data["policy"]["sysctl"]["../../etc/shadow"] = 1
    saved.write_text(json.dumps(data))
    before = tree_digest(root_dir, ignore=())
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--plan", saved)
    assert status == 2 and "the policy saved in it is not valid" in err and err.count("\n") == 1
    assert tree_digest(root_dir, ignore=()) == before
