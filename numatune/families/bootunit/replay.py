"""Live changes no file can keep (IRQ affinity: the IRQ numbers change
between boots; a governor or C-state limit nothing else restores): the
family that plans them gives each a ``boot_key``, and keeps here, per
family, a copy of the policy and those keys in the replay file
(numatune.facts.bootfile.REPLAY_PATH). `numatune boot` plans that copy on
the new boot's facts and applies the live changes that carry those keys
(numatune.apply.replay).

What is kept is what the last apply of the family's rules planned: a policy
edited since is not picked up until it is applied; revert puts the file
back, so a reverted apply is not redone."""
from numatune.facts import bootfile
from numatune.families.bootunit.unit import NAME, install, mechanism, no_runner, not_kept, problem, runner_name
from numatune.model import Change, Compliant, Write


def _normal(policy):
    """The policy as the file holds it (JSON: tuples are lists)."""
    import json     # here: a check of a policy nothing replays at boot loads no JSON code
    return json.loads(json.dumps(policy))


def kept_by(facts, family, keys, policy):
    """What redoes ``family``'s ``keys`` at boot ("numatune-boot.service
    (/etc/numatune/boot-replay.json)"), or "" while the file or the unit
    does not hold them yet: what a family's Compliant says for a live value."""
    mine = facts[NAME]
    entry = mine["replay"].get(family)
    if not keys or entry is None or entry["keys"] != sorted(set(keys)) or entry["policy"] != _normal(policy) \
            or problem(mine) or install(mine):
        return ""
    return mechanism(mine, bootfile.REPLAY_PATH)


def keep(facts, family, keys, policy, change_id, area, rule="", why=""):
    """Keep ``family``'s live changes with ``keys`` for the next boots: a
    Compliant when the replay file and the unit already do, else one
    persistent Change writing the family's entry (and installing and enabling
    the unit). No keys: a stale entry of the family is removed (its policy no
    longer asks for a live-only value), so boot redoes nothing of it."""
    mine = facts[NAME]
    entry = mine["replay"].get(family)
    keys = sorted(set(keys))
    if not keys:
        if entry is not None:
            yield Change(id=change_id, area=area, target="live settings %s redoes at boot" % runner_name(mine),
                         current=", ".join(entry["keys"]), desired="none", scope="persistent", rule=rule, why=why,
                         action="remove %s's entry from %s" % (family, bootfile.REPLAY_PATH),
                         writes=[Write(kind="file", path=bootfile.REPLAY_PATH, editor="boot_replay",
                                       args={"family": family, "keys": [], "policy": {}})])
        return
    if problem(mine):
        yield not_kept(mine, change_id, "live settings %s redoes at boot" % runner_name(mine), ", ".join(keys),
                       area, rule)
        yield from no_runner(mine, area)
        return
    by = kept_by(facts, family, keys, policy)
    if by:
        yield Compliant(change_id, "%s redone at boot on that boot's facts" % ", ".join(keys), area, kept_by=by)
    else:
        policy = _normal(policy)
        writes = []
        if entry is None or entry["keys"] != keys or entry["policy"] != policy:
            writes.append(Write(kind="file", path=bootfile.REPLAY_PATH, editor="boot_replay",
                                args={"family": family, "keys": keys, "policy": policy}))
        writes += install(mine)
        yield Change(id=change_id, area=area, target="live settings %s redoes at boot" % runner_name(mine),
                     current=", ".join(entry["keys"]) if entry else None, desired=", ".join(keys),
                     scope="persistent", rule=rule, why=why,
                     action="keep the policy and these keys in %s: %s plans them again at boot on that boot's "
                            "facts" % (bootfile.REPLAY_PATH, runner_name(mine)), writes=writes)
