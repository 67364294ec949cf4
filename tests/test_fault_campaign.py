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


def test_the_campaign_sees_a_traceback_and_a_tree_left_changed(tmp_path):
    # The checks can fail: an apply with no recovery leaves the tree changed.
    case = campaign.Case(tmp_path)
    root, canary = case.copy("unrecovered")
    assert campaign.numatune(case.apply_args(root))[0] == 0
    assert campaign.tree_digest(root) != case.before
