"""A seeded sample of the fault campaign (tests/faults/campaign.py) on every
run: syscall faults (ENOSPC, EIO, SIGKILL at the write, fsync, rename, mkdir,
chown, fallocate, truncate, unlink, rmdir, chmod, flock and at the opens and
closes of the files written, of apply and of revert), links, FIFOs and
directories planted at every name a write uses, damaged journals, and a
second crash during recovery (tests/faults/recovery.py), on every root the
checkout can build. Each run: no Traceback, no hang, nothing
beside the root changed, the tree as before (or, for a damaged journal, no
file holding bytes it never held and no exit 0 having restored less).
The whole set: `python -m tests.faults.campaign --all` (docs/DEVELOPING.md).
"""
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "faults"))
import campaign  # noqa: E402
import injuries  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
# Runs in one worker process per CPU (NUMATUNE_CAMPAIGN_JOBS to change it).
SAMPLE = int(os.environ.get("NUMATUNE_CAMPAIGN_SAMPLE", "500"))
JOBS = int(os.environ.get("NUMATUNE_CAMPAIGN_JOBS", "0")) or os.cpu_count() or 1


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    # On tmpfs when there is one: a copy of the Superdome root costs a tenth of what it costs on disk.
    shm = os.access("/dev/shm", os.W_OK)
    work = Path(tempfile.mkdtemp(prefix="numatune-campaign-", dir="/dev/shm")) if shm \
        else tmp_path_factory.mktemp("campaign")
    yield {kind: campaign.Case(work, kind) for kind in campaign.root_kinds.available()}
    if shm:
        shutil.rmtree(work, ignore_errors=True)


def test_a_seeded_sample_of_every_class_is_clean(cases):
    runs, counts = campaign.all_runs(cases, campaign.CLASSES)
    # Revert renames once per file it puts back (grubenv, /etc/default/grub, the oracle sysctl.d file).
    assert counts["fakehost"]["apply"]["write"] > 20 and counts["fakehost"]["revert"]["renameat"] >= 3, counts
    by_class = {c: [r for r in runs if r[0] == c] for c in campaign.CLASSES}
    rnd = random.Random(28)
    # Each class in proportion to its size, at least a tenth of the sample.
    sample = []
    for c, mine in sorted(by_class.items()):
        share = max(SAMPLE // 10, SAMPLE * len(mine) // len(runs))
        sample += rnd.sample(mine, min(share, len(mine)))
    assert {r[4] for r in sample if r[0] == "syscall"} == set(campaign.FAULTS), sample
    failed = campaign.run_many(cases, sample, JOBS)
    assert len(failed) == len(sample)
    assert not any(failed.values()), {r: p for r, p in failed.items() if p}


def test_the_campaign_reports_a_tree_left_changed_and_a_traceback(tmp_path, monkeypatch):
    # The checks can fail: with the recovery replaced by a crash, the tree stays applied.
    case = campaign.Case(tmp_path)
    real = campaign.numatune

    def no_recovery(args, strace=None, timeout=campaign.TIMEOUT, **kw):
        if args[0] == "revert" and strace is None:
            return 1, "Traceback (most recent call last):\n  ...\nRuntimeError: recovery skipped\n"
        return real(args, strace, timeout, **kw)
    monkeypatch.setattr(campaign, "numatune", no_recovery)
    campaign.syscall_runs(case, ["write"])
    last = max(case.picks["apply"]["write"])
    problems = campaign.syscall_run(case, "apply", "write", "enospc", last)     # its last words, after the commit
    assert any(p.startswith("traceback") for p in problems), problems
    assert any(p.startswith("tree differs") for p in problems), problems


def test_the_journal_class_sees_a_revert_that_restores_wrong_bytes(tmp_path, monkeypatch):
    # A revert that puts back a value the host never held (as one trusting a forged record would) is caught.
    case = campaign.Case(tmp_path)
    real = campaign.numatune

    def forged_restore(args, strace=None, timeout=campaign.TIMEOUT, **kw):
        status, err = real(args, strace, timeout, **kw)
        if args[0] == "revert":
            (Path(args[args.index("--root") + 1]) / "proc/sys/vm/swappiness").write_text("4242\n")
        return status, err
    monkeypatch.setattr(campaign, "numatune", forged_restore)
    problems = injuries.journal_run(case, "forge-field", 0)
    assert any("wrong bytes" in p and "proc/sys/vm/swappiness" in p for p in problems), problems


def test_a_run_that_outlives_its_timeout_is_a_hang(tmp_path, monkeypatch):
    case = campaign.Case(tmp_path)
    real = campaign.numatune

    def stuck(args, strace=None, timeout=campaign.TIMEOUT, **kw):
        return ("hang", "") if args[0] == "apply" else real(args, strace, timeout, **kw)
    monkeypatch.setattr(campaign, "numatune", stuck)
    problems = injuries.plant_run(case, injuries.LOCK, "fifo")
    assert any(p.startswith("hang") for p in problems), problems


def test_strace_refusing_the_injection_is_a_problem_not_a_clean_run(tmp_path):
    case = campaign.Case(tmp_path)
    problems = campaign.syscall_run(case, "apply", "write", "enospc", 10 ** 6)  # beyond strace's range
    assert any(p.startswith("strace") for p in problems), problems


@pytest.mark.parametrize("fault", ["kill", "eio"])
def test_an_injection_the_run_never_reaches_is_a_problem_not_a_clean_run(tmp_path, fault):
    # strace 6.1 under --seccomp-bpf ran every injected SIGKILL as no signal at all: the run exited 0 and
    # its tree came back by revert, so it counted clean. A run now shows its kill in its status, its
    # error in strace's log, or it is a problem.
    case = campaign.Case(tmp_path)
    problems = campaign.syscall_run(case, "apply", "renameat", fault, 65000)     # strace takes it, apply never gets there
    assert problems == ["injection not reached (exit 0)"], problems


def test_a_kill_ends_the_process_at_the_call_counted(tmp_path):
    case = campaign.Case(tmp_path)
    root, _ = case.copy("kill-first-rename")
    status, err, missed = campaign.injected(case.apply_args(root), campaign.calls.inject("renameat", "signal=KILL", 1),
                                            case.work)
    assert (status, missed) == (-9, None), err
    case.done(root, ["kept"])


@pytest.mark.skipif("ethtool" not in campaign.root_kinds.available(), reason="the ethtool capture is absent")
def test_a_forced_revert_never_restores_an_offline_snapshot_a_lost_record_had_changed(tmp_path):
    # Each offline NIC op keeps the whole snapshot file as it found it; with the first op's record
    # refused (a forged field), a later op's copy holds that op's change: --force must not write it back
    # (the full campaign's `journal ethtool forge-field 1`: wrong bytes in numatune-snapshot/ethtool.json).
    case = campaign.Case(tmp_path, "ethtool")
    assert injuries.journal_run(case, "forge-field", 1) == []


@pytest.mark.skipif("ethtool" not in campaign.root_kinds.available(), reason="the ethtool capture is absent")
@pytest.mark.parametrize("phase, syscall, n", [("apply", "write", 10), ("apply", "fsync", 5)])
def test_a_kill_between_the_snapshots_write_and_its_rename_leaves_no_temporary(tmp_path, phase, syscall, n):
    # The full campaign's `syscall ethtool apply write kill 10`: the undo found the snapshot as before
    # and left `.ethtool.json.numatune-tmp` beside it.
    case = campaign.Case(tmp_path, "ethtool")
    assert campaign.syscall_run(case, phase, syscall, "kill", n) == []


@pytest.mark.skipif("ethtool" not in campaign.root_kinds.available(), reason="the ethtool capture is absent")
@pytest.mark.parametrize("how", injuries.PLANTS)
def test_a_name_like_an_offline_mtus_temporary_is_left_alone(tmp_path, how):
    # An offline mtu is a value write, never through a temporary: what sits at `.mtu.numatune-tmp` is not
    # numatune's to remove (a first cleanup removed links and FIFOs planted there; a directory stopped the revert).
    case = campaign.Case(tmp_path, "ethtool")
    name = next(n for n in injuries.plant_names(case) if n.endswith("/.mtu.numatune-tmp"))
    assert injuries.plant_run(case, name, how) == []


@pytest.mark.skipif("ethtool" not in campaign.root_kinds.available(), reason="the ethtool capture is absent")
def test_a_hardlinked_mtu_is_one_line_naming_the_file(tmp_path):
    # A hardlink at an offline mtu (to a file holding no number): one line naming the file and what it
    # holds, not Python's "ValueError: invalid literal for int()" (#39).
    case = campaign.Case(tmp_path, "ethtool")
    name = next(n for n in injuries.plant_names(case) if n.endswith("/mtu"))
    root, canary = case.copy("mtu-hardlink")
    injuries._plant(root, canary, name, "hardlink")
    status, err = campaign.numatune(case.apply_args(root))
    assert status in (1, 2) and len(err.strip().splitlines()) == 1, err
    assert "ValueError" not in err and "invalid literal" not in err, err
    assert name in err and "not an MTU" in err, err
