"""The campaign's planted-link and journal-damage runs (tests/faults/campaign.py)."""
import json
import os
import random

from conftest import STATE
from trees import digest as tree_digest
from numatune.apply.journal import sealed
from numatune.apply.journal_records import expand
from numatune.apply.root_write import tmp_name

import campaign

PLANTS = ("symlink-abs", "symlink-rel", "symlink-dangling", "hardlink", "fifo", "dir")
LOCK, JOURNALS = "/" + STATE + "/lock", "/" + STATE + "/journal"
INDEX = "/" + STATE + "/journal-index.json"     # a cache apply and revert rewrite (#38)


def _journal(root):
    [path] = (root / STATE / "journal").glob("*.jsonl")
    return path


def plant_names(case):
    """Every name a clean apply of ``case`` wrote: each op's target, the
    temporary of each whole-file write, the lock, the journal directory and
    the journal's index."""
    names = set()
    for record in [i for line in _journal(case.applied).read_text().splitlines() for i in expand(json.loads(line))]:
        if record.get("t") != "intent":
            continue
        op = record["op"]
        for p in (op.get("path"), op.get("file")):
            if p and os.path.isfile(str(case.pristine) + p):
                names.add(p)
            if p and op["kind"] in ("file", "multipath", "netdev"):
                parent, base = p.rsplit("/", 1)
                names.add("%s/%s" % (parent, tmp_name(base)))
    return sorted(names) + [LOCK, JOURNALS, INDEX]


def fits(name, how):
    # The journal directory is a directory already; a directory cannot be hardlinked.
    return not (name == JOURNALS and how in ("dir", "hardlink"))


def _plant(root, canary, name, how):
    real = str(root) + name
    os.makedirs(os.path.dirname(real), exist_ok=True)
    if os.path.lexists(real):
        os.rename(real, str(canary.parent / "saved"))     # what the plant displaces, outside root and canary
    victim = str(canary if name == JOURNALS else canary / "keep")
    if how == "hardlink":
        os.link(victim, real)
    elif how == "symlink-abs":
        os.symlink(victim, real)
    elif how == "symlink-rel":
        os.symlink(os.path.relpath(victim, os.path.dirname(real)), real)
    elif how == "symlink-dangling":
        os.symlink(str(canary / "nothing-here"), real)
    elif how == "fifo":
        os.mkfifo(real)
    else:
        os.mkdir(real)
    return real


# A clean apply and revert take a few seconds; a planted FIFO that blocks a read waits for ever.
PLANT_TIMEOUT = 20


def read_side(case, name, how):
    """A FIFO where a file numatune reads is: a blocking read, the read side's
    hardening (#29, non-blocking regular-file reads), not this campaign's write side."""
    return how == "fifo" and os.path.isfile(str(case.pristine) + name)


def plant_run(case, name, how):
    root, canary = case.copy("plant-%s-%s" % (name.strip("/").replace("/", "_"), how))
    planted = _plant(root, canary, name, how)
    rel = planted[len(str(root)) + 1:]
    baseline, canary_before = tree_digest(root), tree_digest(canary)
    blocking = read_side(case, name, how)
    status, err = campaign.numatune(case.apply_args(root), timeout=PLANT_TIMEOUT // 2 if blocking else PLANT_TIMEOUT)
    # Whatever apply did (applied, refused, rolled back): undo what is left
    # (not after a read that blocked: revert reads the same FIFO).
    rstatus, rerr = (campaign.numatune(["revert", "--last", "--root", root], timeout=PLANT_TIMEOUT)
                     if not (blocking and status == "hang") else (None, ""))
    problems = []
    campaign.check_common(case, root, canary, canary_before, [status, rstatus], [err, rerr], problems)
    if status == "hang" and how == "fifo" and not blocking:
        # A FIFO at a name no file had, in a directory numatune reads whole (NetworkManager's
        # keyfiles): a read-only plan that blocks too says it is the read side.
        blocking = campaign.numatune(["plan", "--root", root, "--policy", case.policy] + list(case.extra),
                                     timeout=PLANT_TIMEOUT // 2)[0] == "hang"
    if "hang" in (status, rstatus) and blocking:
        problems = ["read side (#29): " + p if p.startswith("hang") else p for p in problems]
    after = tree_digest(root)
    # The planted name may be gone (a stale temporary is removed), never something else there.
    if rel in after and after[rel] != baseline.get(rel):
        problems.append("planted %s replaced" % rel)
    skip = {rel}
    if name == JOURNALS and how.startswith("symlink"):
        # A link at the journal directory is followed inside the root (an admin may
        # move the journals): they, and the directories made for them, land at its target.
        skip |= {k for k, v in after.items() if k not in baseline and (v[0] == "dir" or k.endswith(".jsonl"))}
    diff = campaign.differs(after, baseline, skip=skip)
    if diff:
        problems.append("tree differs after apply and revert: %s" % ", ".join(diff[:5]))
    case.done(root, problems, after)
    return problems


# Damages and how many seeded variants of each a full campaign runs per root.
DAMAGES = {"truncate": 20, "truncate-line": 10, "bitflip": 30, "drop": 10, "dup": 10, "garbage": 10,
           "forge-field": 10, "forge-bytes": 5, "forge-new": 5}
# A journal cut exactly at a record boundary reads as a run killed there:
# restoring the records it holds and exiting 0 is all a journal can tell.
UNDETECTABLE = ("truncate-line",)


def _damage(data, how, rnd):
    lines = data.split(b"\n")[:-1]
    records = [json.loads(line) for line in lines]
    # (line, intent): an intent record's own line, or each intent a batch's "intents" record holds.
    intents = [(i, item) for i, r in enumerate(records)
               for item in ([r] if r["t"] == "intent" else r["intents"] if r["t"] == "intents" else [])]
    if how == "truncate":
        return data[:rnd.randrange(1, len(data) - 1)]
    if how == "truncate-line":
        return b"".join(line + b"\n" for line in lines[:rnd.randrange(1, len(lines))])
    if how == "bitflip":
        data = bytearray(data)
        data[rnd.randrange(len(data) - 1)] ^= 1 << rnd.randrange(8)
        return bytes(data)
    at = rnd.randrange(len(lines))
    if how == "drop":
        del lines[at]
    elif how == "dup":
        lines.insert(rnd.randrange(len(lines) + 1), lines[at])
    elif how == "garbage":
        lines.insert(at, bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 200))).replace(b"\n", b" "))
    else:
        i, r = rnd.choice(intents)
        op = r["op"]
        if how == "forge-field":
            # A hand edit: a value's before, a file's mode or its path, the checksum left as it was.
            if op["kind"] == "value":
                op["before"] = str(rnd.randrange(10 ** 6))
            elif op["kind"] == "file" and op["before"].get("exists"):
                op["before"]["mode"] = 0o777
            else:
                op["path"] = op["path"] + ".forged"
            lines[i] = json.dumps(records[i], sort_keys=True).encode()     # the record holding it, unsealed
        elif how == "forge-bytes":
            files = [(j, f) for j, f in intents if f["op"]["kind"] == "file" and f["op"]["before"].get("data")]
            if files:
                i, r = rnd.choice(files)
                r["op"]["before"]["data"] = "Zm9yZ2VkCg=="    # "forged\n", its sha256 left as it was
            lines[i] = json.dumps(sealed(records[i]), sort_keys=True).encode()     # its record sealed again
        else:
            r = dict(r, t="intent", seq=max(f["seq"] for _, f in intents) + 1, op=dict(op, path=op["path"] + ".forged"))
            r["sum"] = "0123456789abcdef"
            lines.append(json.dumps(r, sort_keys=True).encode())
    return b"".join(line + b"\n" for line in lines)


def _wrong(after, before, applied):
    """Paths holding something that is neither their state before apply nor after it."""
    return sorted(k for k in set(after) | set(before) | set(applied)
                  if after.get(k) not in (before.get(k), applied.get(k)))


def journal_run(case, how, i):
    root, canary = case.copy("journal-%s-%d" % (how, i), case.applied)
    journal = _journal(root)
    rnd = random.Random("%s-%s-%d" % (case.kind, how, i))
    journal.write_bytes(_damage(journal.read_bytes(), how, rnd))
    return check_reverts(case, root, canary, how in UNDETECTABLE)


def check_reverts(case, root, canary, undetectable=False):
    """`revert --last`, then (if it did not exit 0) `revert --last --force`, of
    an applied copy whose journal was damaged: the problems (``undetectable``:
    an exit 0 having restored less is what the journal can tell)."""
    canary_before = tree_digest(canary)
    problems, statuses, errs = [], [], []
    for force in ((), ("--force",)):
        status, err = campaign.numatune(["revert", "--last", "--root", root] + list(force))
        statuses.append(status)
        errs.append(err)
        after = tree_digest(root)
        wrong = _wrong(after, case.before, case.after)
        if wrong:
            problems.append("revert %s wrote wrong bytes: %s" % (" ".join(force), ", ".join(wrong[:5])))
        if status == 0 and after != case.before and not undetectable:
            problems.append("revert %s exit 0 having restored less: %s"
                            % (" ".join(force), ", ".join(campaign.differs(after, case.before)[:5])))
        if status == 2 and not force and after != case.after:
            problems.append("a refused revert restored something")
        if status == 0:
            break
    campaign.check_common(case, root, canary, canary_before, statuses, errs, problems)
    case.done(root, problems, after)
    return problems
