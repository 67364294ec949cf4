"""tuned, numad and irqbalance: the other tuners that would fight the policy."""
from numatune.family import Family, Snapshot
from numatune.families.tuned import knob


def _facts_lines(facts):
    # Imported for `numatune facts` only: plan and check never print the facts.
    from numatune.families.tuned import facts_text
    return facts_text.facts_lines(facts)


def _recommend(facts):
    # Imported for `numatune recommend` only: plan and check never load it.
    from numatune.families.tuned import recommend
    return recommend.recommend(facts)


def _as_policy(facts):
    """The host as it is keeps its values where they are: through numatune's
    child profile when that is the active one, else in the files."""
    mine = facts.get(knob.NAME) or {}
    if not mine:
        return {}, {}
    from numatune.families.tuned.route import CHILD
    return {"tuned": {"persist": "profile" if CHILD in (mine.get("active") or []) else "files"}}, {}


FAMILY = Family(
    name=knob.NAME, areas=("cpu", "kernel", "memory"), policy=knob.POLICY, read=knob.read, diff=knob.diff,
    editors=knob.EDITORS, facts_lines=_facts_lines, rivals=knob.rivals, resolve=knob.resolve,
    snapshot=Snapshot(patterns=(
        ("/etc/systemd/system/multi-user.target.wants", r"^(numad|irqbalance|tuned)\.service$", False),
        # RHEL/OL 6: chkconfig's start links say what starts at boot.
        ("/etc/rc.d/rc3.d", r"^S[0-9]+(numad|irqbalance|tuned)$", False),
        ("/etc/tuned", r".*", True),
        ("/usr/lib/tuned", r".*", True),
    ), keep_all=("/etc/tuned", "/usr/lib/tuned")),
    recommend=_recommend, survey={"tuned": {}}, as_policy=_as_policy,
)
