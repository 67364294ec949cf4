"""Writers for each kind of write, each with the same four verbs:

``capture(root, write) -> op``  reads the state before (what revert restores),
``perform(root, op)``           makes the write,
``current_matches(root, op, side)`` tells whether the target holds ``side``
                                ("before" or "after"),
``restore(root, op)``           puts "before" back.

An op is a JSON-able dict written to the journal before ``perform`` runs.
"""
from . import blockattr, cgroup, commands, files, netdev, sql, values

KINDS = {"value": values, "file": files, "command": commands, "cgroup": cgroup, "blockattr": blockattr, "netdev": netdev,
         "sql": sql}


def for_op(op):
    return KINDS[op["kind"]]
