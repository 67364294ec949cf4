#!/usr/bin/env python3
"""Where a plan's time goes, family by family, in one process.

    python bench/phases.py ROOT POLICY

Prints the CPU seconds of reading the host and topology, each family's
``read`` and ``diff``, and rendering the plan as text and JSON, largest
first. CPU time, not wall time, so that other work on the machine does not
move the figures; run it on a host made by make_host.py to find what holds
plan/floor back.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from numatune import plan as plan_mod  # noqa: E402
from numatune.policy import stack as policy_mod  # noqa: E402
from numatune.facts import kernel, topology  # noqa: E402
from numatune.families.registry import for_host  # noqa: E402
from numatune.resolve import resolve  # noqa: E402
from numatune.report.console import plan_text  # noqa: E402
from numatune.root import Root  # noqa: E402


def main(root_dir, policy_path):
    root = Root(root_dir)
    data = policy_mod.load([policy_path], root).data
    spent = {}

    def timed(name, fn):
        start = time.process_time()
        result = fn()
        spent[name] = spent.get(name, 0.0) + time.process_time() - start
        return result

    facts = {"root": root.path}
    facts["host"] = timed("facts: host", lambda: kernel.read(root))
    facts["topology"] = timed("facts: topology", lambda: topology.read(root))
    families = timed("import families", lambda: for_host(data, root))
    facts["families"] = [f.name for f in families]
    for family in families:
        facts[family.name] = timed("read: " + family.name, lambda: family.read(root, data))
    timed("resolve", lambda: resolve(data, facts))
    for family in families:
        timed("diff: " + family.name, lambda: list(family.diff(data, facts)))
    plan = timed("plan.build (all diffs again)", lambda: plan_mod.build(data, facts))
    timed("render: text", lambda: plan_text(plan))
    timed("render: json", lambda: json.dumps(plan.to_json(), indent=2))
    total = sum(v for k, v in spent.items() if not k.startswith("diff: "))
    for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        if seconds >= 0.001:
            print("%-32s %8.3f s CPU" % (name, seconds))
    print("%-32s %8.3f s CPU (%d changes)" % ("total (diffs counted once)", total, len(plan.changes)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    sys.exit(main(sys.argv[1], sys.argv[2]))
