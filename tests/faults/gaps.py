"""The campaign's two classes from #39 (tests/faults/campaign.py), each run
over every position or name, not sampled:

``record``     the journal of an applied copy with one record removed, at
               every position in turn; then ``revert --last`` and, if it
               refused, ``revert --last --force``. The journal class's checks
               (no file holding bytes it never held, a refusal restores
               nothing, exit 0 only with the whole tree back), and exit 0 only
               where a record's loss cannot be seen: every intent is there.
``temporary``  a directory, a FIFO or a symlink at the name of every
               whole-file write's temporary; apply, then revert if it applied.
               The plant class's checks (tree as planted, canary untouched),
               and the journal tells the truth: no "ROLLBACK FAILED" and no
               "partly reverted" where nothing was changed, a failed apply's
               transaction "rolled back", a directory named by its whole path.
"""
import json
import os
import subprocess
import sys

from conftest import STATE
from trees import digest as tree_digest

import campaign
import injuries

TEMPORARY_PLANTS = ("dir", "fifo", "symlink-abs")


def record_count(case):
    return len(injuries._journal(case.applied).read_bytes().splitlines())


def runs(case, classes):
    out = []
    if "record" in classes:
        out += [("record", case.kind, "drop-at", i) for i in range(record_count(case))]
    if "temporary" in classes:
        out += [("temporary", case.kind, name, how) for name in injuries.plant_names(case)
                if name.endswith(".numatune-tmp") for how in TEMPORARY_PLANTS]
    return out


def record_run(case, how, i):
    """The journal with its record ``i`` (0-based line) removed, then revert."""
    root, canary = case.copy("record-%d" % i, case.applied)
    journal = injuries._journal(root)
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:i] + lines[i + 1:]))
    # Strict: whatever record is lost (a done, the commit, the begin), exit 0 means the whole tree is back.
    return injuries.check_reverts(case, root, canary)


def _states(root):
    """The journal's transaction states, oldest first: from --format json, as
    the text table folds a transaction's command line onto lines of its own."""
    status, out, err = _cli(["history", "--root", root, "--format", "json"])
    if status != 0:
        return ["unreadable (history exit %s: %s)" % (status, err.strip()[-200:])]
    return [t["state"] for t in json.loads(out)]


def _cli(args):
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(campaign.REPO), PYTHONHASHSEED="0",
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-m", "numatune"] + [str(a) for a in args], capture_output=True,
                       text=True, env=env, cwd=str(campaign.REPO), timeout=campaign.TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def temporary_run(case, name, how):
    root, canary = case.copy("temporary-%s-%s" % (name.strip("/").replace("/", "_"), how))
    planted = injuries._plant(root, canary, name, how)
    rel = planted[len(str(root)) + 1:]
    baseline, canary_before = tree_digest(root), tree_digest(canary)
    status, err = campaign.numatune(case.apply_args(root), timeout=injuries.PLANT_TIMEOUT)
    problems = []
    if status not in (0, "hang"):
        if "ROLLBACK FAILED" in err or "partly" in err:
            problems.append("apply says its rollback failed: %s" % err.strip()[-200:])
        if len(err.strip().splitlines()) != 1:
            problems.append("apply's error is not one line")
        states = _states(root)
        if states and states[-1] != "rolled back" or not states and status != 2:
            problems.append("history says %s after a failed apply" % (states[-1] if states else "nothing"))
        if how == "dir" and planted not in err:
            problems.append("apply does not name the directory in the way by its whole path")
    rstatus, rerr = campaign.numatune(["revert", "--last", "--root", root], timeout=injuries.PLANT_TIMEOUT)
    campaign.check_common(case, root, canary, canary_before, [status, rstatus], [err, rerr], problems)
    after = tree_digest(root)
    if rel in after and after[rel] != baseline.get(rel):
        problems.append("planted %s replaced" % rel)
    if how == "dir" and not os.path.isdir(planted):     # by its path: a name under a link is no digest key
        problems.append("planted %s removed (a directory is not numatune's)" % rel)
    diff = campaign.differs(after, baseline, skip={rel})
    if diff:
        problems.append("tree differs after apply and revert: %s" % ", ".join(diff[:5]))
    case.done(root, problems, after)
    return problems


__all__ = ["runs", "record_run", "temporary_run", "STATE"]
