"""The storage lines of `numatune facts`: block devices that share kind,
model, size, node, scheduler and queue settings as one entry with their names
folded (4,096 3PAR paths read as a handful of lines)."""
from numatune.facts.cpulist import format_cpulist
from numatune.report.factlines import capped, fold, line, names, plural
from numatune.report.numbers import size

NAME = "storage"


def _key(d):
    sched = (d.get("scheduler") or {}).get("current")
    settings = tuple(sorted((k, s.get("value")) for k, s in (d.get("settings") or {}).items()
                            if isinstance(s, dict) and s.get("value") is not None and k != "rotational"))
    model = " ".join(x for x in (d.get("vendor"), d.get("model")) if x)
    return (d.get("kind") or "?", model, d.get("size"), d.get("rotational"), sched,
            len(d.get("slaves") or ()), settings)


def _describe(key, nodes):
    kind, model, nbytes, rotational, sched, paths, settings = key
    first = [kind + (" " + model if model else "")]
    if nbytes is not None:
        first.append(size(nbytes))
    # The node is not part of the key: paths spread over eight HBAs are one entry.
    nodes = sorted({n for n in nodes if isinstance(n, int) and n >= 0})
    if nodes:
        first.append("node%s %s" % ("s" if len(nodes) > 1 else "", format_cpulist(nodes)))
    if rotational is not None:
        first.append("rotational" if rotational else "non-rotational")
    if paths and kind == "dm-multipath":
        first.append(plural(paths, "path"))
    elif paths:
        first.append("over " + plural(paths, "device"))
    if sched:
        first.append("scheduler " + sched)
    # Queue values stay as sysfs prints them (a reader compares them with the policy's).
    return ", ".join(first), ", ".join("%s %s" % kv for kv in settings)


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    if mine.get("source") is None and not mine.get("devices"):
        return ["storage: not read (the policy has no [[block]] rule)"]
    devices = mine.get("devices") or {}
    source = mine.get("source")
    out = ["storage: %s%s" % (plural(len(devices), "block device"),
                              " (read from %s)" % source if source else "")]
    shown, rest = capped(fold(devices, _key), "devices")
    for key, members in shown:
        head, settings = _describe(key, [devices[m].get("numa_node") for m in members])
        out += line("%s: %s" % (plural(len(members), "device"), head))
        out += line(names(members), indent=6)
        if settings:
            out += line(settings, indent=6)
    if rest:
        out.append(rest)
    assumed = [n for n, d in devices.items() if d.get("devtype_assumed")]
    if assumed:
        out += line("no uevent file for %s: taken as whole disks (every /sys/block entry is one)"
                    % plural(len(assumed), "device"))
    files = [("numatune's udev rules", mine.get("udev_rules")), ("/etc/multipath.conf", mine.get("multipath_conf"))]
    said = ["%s %s" % (name, "present" if text is not None else "absent") for name, text in files if name]
    if "multipathd" in mine:
        said.append("multipathd %s" % (mine["multipathd"] or "not installed"))
    out += line("; ".join(said))
    maps = {n: d for n, d in devices.items() if d.get("kind") == "dm-multipath" and d.get("dm_name")}
    if maps:
        # mpatha..mpathz, mpathaa..: shortest first reads in the order multipathd names them.
        ordered = sorted((maps[n]["dm_name"] for n in maps), key=lambda m: (len(m), m))
        out += line("%s: %s" % (plural(len(maps), "multipath map"), names(ordered)))
    return out
