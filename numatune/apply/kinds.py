"""Writers for each kind of write, each with the same four verbs:

``capture(root, write) -> op``  reads the state before (what revert restores),
``perform(root, op)``           makes the write,
``current_matches(root, op, side)`` tells whether the target holds ``side``
                                ("before" or "after"),
``restore(root, op)``           puts "before" back.

An op is a JSON-able dict written to the journal before ``perform`` runs.
"""
from numatune.families.storage import blockattr
from numatune.families.cpuset import cgroup_write as cgroup
from numatune.apply import command as commands, file as files, value as values
from numatune.families.network import netdev
from numatune.families.oracle import sql_write as sql

KINDS = {"value": values, "file": files, "command": commands, "cgroup": cgroup, "blockattr": blockattr, "netdev": netdev,
         "sql": sql}


def for_op(op):
    return KINDS[op["kind"]]
