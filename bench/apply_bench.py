"""`bench/run.py --apply-only`: apply + revert against the floor, and nothing else.

The cheapest run that prints ``apply+revert/floor`` (issue #38): one giant host
(no 1/8 host, no other shapes, no side-by-side runs, no plan or check
timings), the floor traced from its plan as the whole bench traces it, then
``--reps`` rounds of the floor and ``apply --yes`` + ``revert --last`` on the
host, interleaved, medians (the full bench times one apply + revert). Every
round's revert must leave the plan as it was (checked after the first and the
last round: a check is a plan). Then the kept-journals comparison
(``apply kept50/none``, ``revert kept50/none``) unless ``--no-kept``.
"""
import json
import os
import statistics
import subprocess

from make_host import make_host


def run_apply_only(args, work, sizes, r):
    """``r``: the run module (numatune, run, floor_ops, working_policy, kept_journals, say)."""
    root = os.path.join(work, "host")
    info = make_host(root, **sizes)
    r.say("# host: %d CPUs, %d SCSI paths, %d dm, %d NICs x %d queues; %d entries under %s"
          % (info["cpus"], info["scsi_paths"], info["dm_devices"], info["nics"], info["queues_per_nic"],
             info["entries"], args.workdir))
    policy = os.path.join(work, "bench-policy.toml")
    r.working_policy(policy, root)
    planned, ops_file = os.path.join(work, "plan.json"), os.path.join(work, "floor.ops")
    plan_argv = r.numatune("plan", "--root", root, "--policy", policy)
    r.say("# floor: %s" % r.floor_ops(plan_argv + ["--out", planned], [root, policy], ops_file))
    with open(planned, encoding="utf-8") as f:
        before = json.load(f)["changes"]
    floor_argv = [r.PY, os.path.join(r.HERE, "floor.py"), ops_file]
    apply_argv = r.numatune("apply", "--root", root, "--policy", policy, "--yes", "--confirm-within", "0")
    revert_argv = r.numatune("revert", "--last", "--root", root)
    r.run(floor_argv)   # warm, as the other runs read what the traced plan just read
    rounds = max(args.reps, 3)
    floor, both = [], []
    for i in range(rounds):
        floor.append(r.run(floor_argv))
        applied, reverted = r.run(apply_argv, ok=(0, 1)), r.run(revert_argv)
        both.append((applied[0] + reverted[0], applied[1] + reverted[1], applied, reverted))
        if i in (0, rounds - 1):
            _same_plan(r, plan_argv, before)
    med = lambda xs, k: statistics.median(x[k] for x in xs)     # noqa: E731
    a, v = [b[2] for b in both], [b[3] for b in both]
    r.say("# medians of %d rounds: floor %.0f ms wall %.0f ms CPU; apply %.0f ms wall %.0f ms CPU, revert --last "
          "%.0f ms wall %.0f ms CPU (%d changes)" % (rounds, med(floor, 0) * 1000, med(floor, 1) * 1000,
                                                    med(a, 0) * 1000, med(a, 1) * 1000, med(v, 0) * 1000,
                                                    med(v, 1) * 1000, len(before)))
    r.say("# CPU-time ratio: apply+revert/floor %.2f" % (med(both, 1) / med(floor, 1)))
    r.say("apply+revert/floor = %.2f" % (med(both, 0) / med(floor, 0)))
    if not args.no_kept:
        r.kept_journals(root, policy)


def _same_plan(r, plan_argv, before):
    out = subprocess.run(plan_argv + ["--format", "json"], capture_output=True, env=r.ENV, cwd=r.REPO,
                         check=True).stdout
    after = json.loads(out)["changes"]
    if after != before:
        differ = next((b["id"] for a, b in zip(after, before) if a != b), "the number of changes")
        raise r.BenchError("bench: after apply + revert the plan differs (%s): revert was not exact" % differ)
