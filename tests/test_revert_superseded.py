"""Which pending undos a revert leaves as superseded (an older write of the
same whole target already undone), held to the rule written out in full:
the oldest undone seq per target is all it needs."""
import random

from numatune.apply.revert import WHOLE_TARGET, _superseded


class _Tx:
    def __init__(self, ops, undone):
        self.ops = {seq: {"seq": seq, "op": op} for seq, op in ops.items()}
        self.undone = set(undone)


def _by_the_rule(tx, pending):
    undone_at = {}
    for s in tx.undone:
        op = (tx.ops.get(s) or {}).get("op")
        if isinstance(op, dict) and op.get("kind") in WHOLE_TARGET and op.get("path"):
            undone_at.setdefault((op["kind"], op["path"]), []).append(s)
    return {seq for seq, op in pending if any(s < seq for s in undone_at.get((op.get("kind"), op.get("path")), ()))}


def test_superseded_is_the_rule_on_random_transactions():
    rng = random.Random(38)
    for _ in range(500):
        n = rng.randint(0, 30)
        ops = {seq: {"kind": rng.choice(("value", "file", "netdev")), "path": rng.choice(("/a", "/b", "/c", ""))}
               for seq in range(1, n + 1)}
        undone = [s for s in ops if rng.random() < 0.3] + ([n + 5] if rng.random() < 0.2 else [])  # one not journaled
        tx = _Tx(ops, undone)
        pending = [(s, tx.ops[s]["op"]) for s in sorted(ops, reverse=True) if s not in tx.undone]
        assert _superseded(tx, pending) == _by_the_rule(tx, pending)


def test_a_newer_write_over_an_undone_older_one_is_superseded():
    tx = _Tx({1: {"kind": "value", "path": "/a"}, 2: {"kind": "value", "path": "/a"},
              3: {"kind": "netdev", "path": "/a"}}, undone=[1])
    pending = [(3, tx.ops[3]["op"]), (2, tx.ops[2]["op"])]
    assert _superseded(tx, pending) == {2}
