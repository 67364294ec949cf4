"""A sample of the fault campaign (tests/faults/campaign.py) on every run:
strace injects ENOSPC or SIGKILL at a write, fsync or rename of apply or of
revert; after `revert --last` the tree is as before apply, no Traceback, no
write beside the root."""
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "faults"))
import campaign  # noqa: E402

pytestmark = pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")


def test_a_sample_of_the_campaign_is_clean(tmp_path):
    case = campaign.Case(tmp_path)
    runs, counts = campaign.plan_runs(case, sample=12, seed=28)
    assert counts["apply"]["write"] > 20 and counts["revert"]["renameat"] > 3, counts
    # Both phases and both faults in every sample (12 of ~440 drawn with a fixed seed).
    assert {r[0] for r in runs} == {"apply", "revert"} and {r[2] for r in runs} == {"enospc", "kill"}, runs
    failed = {run: campaign.one_run(case, *run) for run in runs}
    assert not any(failed.values()), {r: p for r, p in failed.items() if p}


def test_the_campaign_reports_a_tree_left_changed_and_a_traceback(tmp_path, monkeypatch):
    # The checks can fail: with the recovery replaced by a crash, the tree stays applied.
    case = campaign.Case(tmp_path)
    real = campaign.numatune

    def no_recovery(args, strace=None, timeout=campaign.TIMEOUT):
        if args[0] == "revert" and strace is None:
            return 1, "Traceback (most recent call last):\n  ...\nRuntimeError: recovery skipped\n"
        return real(args, strace, timeout)
    monkeypatch.setattr(campaign, "numatune", no_recovery)
    problems = campaign.one_run(case, "apply", "write", "enospc", 65000)  # an index never reached (strace takes up to 65535)
    assert any(p.startswith("traceback") for p in problems), problems
    assert any(p.startswith("tree differs") for p in problems), problems


def test_strace_refusing_the_injection_is_a_problem_not_a_clean_run(tmp_path):
    case = campaign.Case(tmp_path)
    problems = campaign.one_run(case, "apply", "write", "enospc", 10 ** 6)  # beyond strace's range
    assert any(p.startswith("strace") for p in problems), problems
