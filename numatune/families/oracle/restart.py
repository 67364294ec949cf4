"""A parameter file already right while the running instance is not: the
change waits for a restart until the alert log's last startup shows it.

Without this, the plan after an apply is empty the moment the pfile holds
the new values, while the instance still runs the old processor group and
the old SGA: a DBA reading ``check`` would think the work is done. The
evidence is the last startup's own list of non-default parameters; an
alert log that did not log one proves nothing, and nothing is said. Pure."""
from numatune.model import Finding
from numatune.families.oracle import desired, values

# Values a startup list leaves out because they are the default: a parameter
# missing from the list ran with one of these.
UNLISTED = {"0", "FALSE", ""}


def _ran_with(listed, name):
    got = listed.get(name.lower())
    return values.normalize(name, got) if got is not None else None


def findings(data, facts):
    for inst in facts["oracle"]["instances"]:
        ev = inst.get("evidence") or {}
        listed = ev.get("listed")
        if listed is None or inst.get("live") is not None:
            continue    # no startup list to compare with, or the instance was asked itself
        sid = inst["sid"]
        for name, rendered in desired.wanted(data, inst)[0].items():
            # The alert log's own lines say these (checks.evidence: running-group, running-no-numa).
            if name.lower() == "processor_group_name" or \
                    (name.lower() == "_enable_numa_support" and ev.get("numa_enabled") is not None):
                continue
            want = values.normalize(name, rendered)
            if values.normalize(name, inst["params"].get(name.lower())) != want:
                continue    # still to change in the file: the plan's change says it
            ran = _ran_with(listed, name)
            if ran == want or (ran is None and want in UNLISTED):
                continue
            yield Finding(id="oracle.restart-pending:%s:%s" % (sid, name.lower()), severity="warning",
                          area="oracle", target=sid, rule="oracle.parameters." + name, pending=True,
                          message="%s: %s = %s in %s, but its last startup%s ran with %s: it takes effect when "
                                  "%s restarts" % (sid, name, rendered, inst["param_file"].get("path") or "its pfile",
                                                   " (%s)" % ev["started"] if ev.get("started") else "",
                                                   listed[name.lower()] if ran is not None else "the default",
                                                   sid),
                          why="restart %s in its maintenance window; `numatune check` says this until the alert "
                              "log shows a startup with the new value" % sid)
