"""The second half of `numatune boot`: the live changes no file can keep
(IRQ affinity on IRQ numbers that differ at each boot, a governor nothing
else restores), planned again on this boot's facts from the policy copy the
last apply kept in the replay file (numatune.facts.bootfile.REPLAY_PATH),
and applied as a normal transaction (journaled; `numatune revert` and
`history` see it, command "boot").

Only the live changes that carry a key the file lists for their family are
applied: a policy edited since that apply is not read, and a family's other
rules (its persistent files, a bond) are left to apply. The core names no
family: the file says which family planned what."""
import json
import sys

from numatune.errors import NumatuneError
from numatune.facts.bootfile import REPLAY_PATH, parse_replay


def _groups(entries):
    """[(policy, {family: keys})]: families that kept the same policy copy share one plan and one transaction."""
    out = {}
    for family, entry in sorted(entries.items()):
        text = json.dumps(entry["policy"], sort_keys=True)
        out.setdefault(text, (entry["policy"], {}))[1][family] = set(entry["keys"])
    return list(out.values())


def run(root, out=None):
    """Redo what the replay file under ``root`` lists; one line per setting
    on ``out``. Returns the number of failures (a policy copy that no longer
    loads, a run refused or rolled back); the other families still run."""
    from numatune import engine
    from numatune.policy.stack import from_data
    out = out or sys.stdout
    entries = parse_replay(root.read_text(REPLAY_PATH))
    failed = 0
    for data, wanted in _groups(entries):
        names = ", ".join("%s (%s)" % (family, ", ".join(sorted(keys))) for family, keys in sorted(wanted.items()))
        try:
            policy = from_data(data, REPLAY_PATH)
            plan, facts = engine.make_plan(root, policy, strict=False)
            changes = [c for c in plan.changes if c.scope == "live" and c.boot_key in wanted.get(c.family, ())]
            for f in plan.findings:
                # What may stop a kept setting on this boot; the plan's advice is check's to say.
                if f.family in wanted and f.severity == "critical":
                    out.write("numatune boot: %s: %s\n" % (f.id, f.message))
            done = {(c.family, c.boot_key) for c in changes}
            for family, keys in sorted(wanted.items()):
                for key in sorted(keys):
                    if (family, key) not in done:
                        out.write("numatune boot: %s: nothing to change on this boot\n" % key)
            if not changes:
                continue
            txid, ops, _ = engine.apply(root, policy, changes, command="boot", plan=plan, facts=facts)
        except NumatuneError as e:
            failed += 1
            out.write("numatune boot: %s not redone: %s%s\n" % (names, e.message, " (%s)" % e.hint if e.hint else ""))
            continue
        for c in changes:
            out.write("numatune boot: %s = %s (was %s; %s, transaction %s)\n"
                      % (c.target, c.desired, c.current, c.boot_key, txid))
    out.flush()
    return failed
