"""The kinds of write, each a module with the same verbs:

``capture(root, write) -> op``  reads the state before (what revert restores),
``perform(root, op)``           makes the write,
``current_matches(root, op, side)`` tells whether the target holds ``side``
                                ("before" or "after"),
``restore(root, op)``           puts "before" back.
``current_sides(root, op)``     optional: (holds "before", holds "after") from one read.
``release(op)``                 optional: frees what current_sides held for a restore
                                (called for every op of an undo batch, once it is done, whose
                                restore did not return: a restore takes what its decision held).
``offline_file(root, write)``   optional: the write as a "file" write (an editor of one
                                file) where it is one, else None; apply then merges it
                                with the transaction's other edits of that file.

An op is a JSON-able dict written to the journal before ``perform`` runs.
"""
from collections import ChainMap

from numatune.apply import command, file, value
from numatune.families.registry import WRITE_KINDS

# The generic kinds; the families add their own (blockattr, netdev, cgroup, sql),
# each family imported when a write of its kind is first looked up.
GENERIC = {"value": value, "file": file, "command": command}
KINDS = ChainMap(GENERIC, WRITE_KINDS)


def for_op(op):
    # The generic kinds without ChainMap's lookup in Python: revert asks this four times per op.
    return GENERIC.get(op["kind"]) or KINDS[op["kind"]]
