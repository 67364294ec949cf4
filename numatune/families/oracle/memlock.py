"""The oracle user's memlock: an instance locks its SGA in HugePages only
up to it. Planned with count = "auto" into numatune's own limits.d file."""
from numatune.model import Change, Compliant, Write

LIMITS_FILE = "/etc/security/limits.d/90-numatune-oracle.conf"
LIMITS_HEADER = ("# Managed by numatune (%s): memlock for the HugePages that hold the SGAs.\n"
                 "# Restored by `numatune revert`.\n" % LIMITS_FILE)


def wanted(data, facts):
    """kB the pool count = "auto" plans needs locked; None without one (a
    fixed count, or a pool the plan refuses to change)."""
    hp = data.get("hugepages") or {}
    resolved = facts["resolved"]["hugepages"]
    if hp.get("count") != "auto" or not resolved["policy"]:
        return None
    auto = resolved["auto"]
    return auto["count"] * auto["kb"]


def logged(facts):
    """(kB, sid) of the lowest memlock the instances' last startups logged
    ("Per process system memlock (soft) limit = UNLIMITED": -1), None when
    none logged one. What the instance got counts, whatever set it: limits.d,
    or a unit's LimitMEMLOCK that no limits file shows."""
    got = [(i["evidence"]["memlock_kb"], i["sid"]) for i in facts["oracle"]["instances"]
           if (i.get("evidence") or {}).get("memlock_kb") is not None]
    if not got:
        return None
    return min(got, key=lambda g: float("inf") if g[0] == -1 else g[0])


def _holds(kb, want):
    return kb == -1 or (kb or 0) >= want


def after(data, facts):
    want = wanted(data, facts)
    soft = facts["oracle"]["memlock"]["soft"]
    seen = logged(facts)
    if want is not None and seen and _holds(seen[0], want) and not _holds(soft, want):
        return seen[0]
    if want is not None and soft != -1 and (soft or 0) < want:
        return want
    return soft


def limit(kb):
    """A memlock limit as a DBA reads it: "unset", "unlimited" or "N kB"."""
    return "unset" if kb is None else "unlimited" if kb == -1 else "%d kB" % kb


def plan(data, facts):
    want = wanted(data, facts)
    if want is None:
        return
    user = (data.get("oracle") or {}).get("user", "oracle")
    lock = facts["oracle"]["memlock"]
    ok = [_holds(v, want) for v in (lock["soft"], lock["hard"])]
    if all(ok):
        yield Compliant("oracle.memlock", "memlock of %s holds the %d kB pool" % (user, want), "oracle")
        return
    seen = logged(facts)
    if seen and _holds(seen[0], want):
        yield Compliant("oracle.memlock", "memlock holds the %d kB pool: %s's last startup logged \"Per process "
                        "system memlock (soft) limit = %s\" (set outside the limits files, e.g. a unit's "
                        "LimitMEMLOCK)" % (want, seen[1], "UNLIMITED" if seen[0] == -1 else limit(seen[0])),
                        "oracle")
        return
    yield Change(id="oracle.memlock", area="oracle", target="%s: %s memlock" % (LIMITS_FILE, user),
                 current="soft %s, hard %s" % (limit(lock["soft"]), limit(lock["hard"])), desired="%d kB" % want,
                 scope="persistent",
                 action="set in %s" % LIMITS_FILE, rule="hugepages.count", restart_required=True,
                 why="an instance locks its SGA in HugePages only up to memlock (applies to new logins)",
                 writes=[Write(kind="file", path=LIMITS_FILE, editor="oracle_memlock",
                               args={"user": user, "kb": want})])


def set_limit(text, user, kb):
    """Editor: ``user soft/hard memlock kb``; other lines kept."""
    lines = (text if text is not None else LIMITS_HEADER).splitlines(True)
    out = [ln for ln in lines if not (len(ln.split()) == 4 and ln.split()[0] == user and ln.split()[2] == "memlock")]
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    out += ["%s soft memlock %d\n" % (user, kb), "%s hard memlock %d\n" % (user, kb)]
    return "".join(out)
