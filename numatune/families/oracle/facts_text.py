"""The Oracle lines of `numatune facts`: the databases /etc/oratab lists,
each instance's home, version, parameter file and memory parameters, what
its alert log says about large pages and NUMA, and the oracle user's limits."""
from numatune.facts.cpulist import format_cpulist
from numatune.report.factlines import line, names, plural
from numatune.report.numbers import count, size, size_kb

# Kernels since 3.16 default shmmax/shmall to ULONG_MAX - 2**24: "no limit",
# not "16384.0 PiB". Anything this large cannot be a limit a person set.
_NO_LIMIT = 2 ** 62


def _shm(value, show):
    if value is None:
        return "(unset)"
    return "no limit (the kernel's default)" if value >= _NO_LIMIT else show(value)

NAME = "oracle"
# The parameters that size memory and place it; the JSON has every one read.
SHOWN = ("sga_target", "sga_max_size", "memory_target", "memory_max_target", "pga_aggregate_target",
         "pga_aggregate_limit", "inmemory_size", "use_large_pages", "_enable_numa_support", "cpu_count",
         "cluster_database")


def _version(inst):
    v = (inst.get("version") or {}).get("version")
    return ".".join(str(x) for x in v) if v else "version ?"


def _param_file(inst):
    pf = inst.get("param_file") or {}
    if not pf.get("path"):
        return "no parameter file found"
    text = "%s %s" % (pf.get("kind") or "file", pf["path"])
    if pf.get("via"):
        text += " (via %s)" % pf["via"]
    return text + ("" if pf.get("readable", True) else " (not readable)")


def _params(inst):
    params = {k.lower(): v for k, v in (inst.get("params") or {}).items()}
    shown = ["%s %s" % (k, params[k]) for k in SHOWN if k in params]
    rest = len(params) - len(shown)
    return ", ".join(shown) + ("; %s more" % count(rest) if rest and shown else "%s parameters" % count(rest)
                               if rest else "")


def _evidence(inst):
    ev = inst.get("evidence") or {}
    if not ev:
        return None
    parts = ["started %s" % ev["started"]] if ev.get("started") else []
    for kb, lp in sorted((ev.get("large_pages") or {}).items(), key=lambda kv: int(kv[0])):
        if lp.get("expected") or lp.get("allocated"):
            parts.append("%s pages %s of %s allocated" % (size_kb(int(kb)), count(lp.get("allocated")),
                                                          count(lp.get("expected"))))
    if ev.get("numa_nodes") is not None:
        parts.append("saw %s NUMA node(s), NUMA support %s" % (ev["numa_nodes"], "on" if ev.get("numa_enabled")
                                                              else "off"))
    if ev.get("errors"):
        parts.append(plural(len(ev["errors"]), "error"))
    return "alert log: " + "; ".join(parts) if parts else None


def _limit(kb):
    return "(unset)" if kb is None else "unlimited" if kb == -1 else size_kb(kb)


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    instances = mine.get("instances") or []
    tab = mine.get("oratab") or []
    out = line("Oracle: %s in /etc/oratab%s, %s read" % (plural(len(tab), "database"),
                                                        " (%s)" % names(tab) if tab else "",
                                                        plural(len(instances), "instance")), indent=0)
    for inst in instances:
        out += line("%s: %s, %s" % (inst.get("sid"), _version(inst), inst.get("home") or "home ?"))
        out += line(_param_file(inst), indent=6)
        params = _params(inst)
        if params:
            out += line(params, indent=6)
        if inst.get("peers"):
            out += line("RAC peers in the same file: " + ", ".join(sorted(inst["peers"])), indent=6)
        if inst.get("live_error"):
            out += line("connection: " + inst["live_error"], indent=6)
        elif inst.get("live") is not None:
            out += line("connected: values read from the running instance", indent=6)
        evidence = _evidence(inst)
        if evidence:
            out += line(evidence, indent=6)
        if inst.get("sga_nodes"):
            nodes = sorted(int(n) for n in inst["sga_nodes"])
            out += line("SGA pages on node%s %s" % ("s" if len(nodes) > 1 else "", format_cpulist(nodes)), indent=6)
    for svc in mine.get("srvctl") or []:
        preferred, available = ", ".join(svc.get("preferred") or []), ", ".join(svc.get("available") or [])
        out += line("service %s: preferred %s, available %s" % (svc.get("name"), preferred or "-", available or "-"))
    memlock, shm = mine.get("memlock") or {}, mine.get("shm") or {}
    if memlock or shm:
        page = shm.get("page_size") or 4096
        shmall = shm.get("shmall")
        out += line("memlock soft %s, hard %s; shmmax %s; shmall %s" % (
            _limit(memlock.get("soft")), _limit(memlock.get("hard")),
            _shm(shm.get("shmmax"), size),
            _shm(shmall, lambda n: "%s pages (%s)" % (count(n), size(n * page)))))
    if mine.get("cpusets"):
        out += line("cpusets on the host: " + ", ".join(sorted(mine["cpusets"])))
    listeners = mine.get("listeners")
    if listeners:
        written = [n for n, text in sorted((listeners.get("files") or {}).items()) if text is not None]
        out += line("listener files already written: %s" % (", ".join(written) or "none"))
    return out
