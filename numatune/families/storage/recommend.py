"""What `numatune recommend` says per array: one [[block]] per vendor/model
found, with what the sources give for it, or a note that none covers it."""
from numatune.recommend.entry import SUPERDOME, Entry, note

ARRAY_KINDS = ("disk", "dm-multipath")
# What a source says for an array, by (vendor, model): Table 8 of the Superdome X paper's
# high-performance set on 3PAR virtual volumes (FIO and Oracle runs).
KNOWN = {
    ("3PARdata", "VV"): {"scheduler": "deadline", "nr_requests": 1024, "rotational": 0},
}


def _values(devices, attr):
    out = []
    for dev in devices:
        value = ((dev.get("settings") or {}).get(attr) or {}).get("value")
        if value is not None and str(value).lstrip("-").isdigit():
            out.append(int(value))
    return out


def _arrays(devices):
    groups = {}
    for dev in devices.values():
        if dev.get("kind") in ARRAY_KINDS and dev.get("vendor") and dev.get("model"):
            groups.setdefault((dev["vendor"], dev["model"]), []).append(dev)
    return groups


def _wwn_prefix(devs):
    wwns = [(d.get("wwn") or "").lower().replace("0x", "") for d in devs if d.get("wwn")]
    return ("WWN prefix %s, " % wwns[0][:8]) if wwns and all(w[:8] == wwns[0][:8] for w in wwns) else ""


def _rule(vendor, model, devs):
    want = dict(KNOWN[(vendor, model)])
    # Never lower what the host has higher: the paper's 1024 is what it raised 128 to, so it is a floor:
    # each device keeps its own higher queue, the others rise to it.
    floor = want["nr_requests"]
    want["nr_requests"] = {"at_least": floor}
    higher = sorted("%s %d" % (d["name"], v) for d in devs for v in _values([d], "nr_requests") if v > floor)
    kept = ""
    if higher:
        kept = " nr_requests stays at the host's higher value (%s%s): 1024 is a floor (at_least)." % (
            ", ".join(higher[:6]), ", ..." if len(higher) > 6 else "")
    now = ", ".join("%s %s" % (attr, "/".join(sorted({str(v) for v in _values(devs, attr)})) or "?")
                    for attr in ("nr_requests", "rotational", "nomerges", "queue_depth"))
    schedulers = sorted({(d.get("scheduler") or {}).get("current") or "?" for d in devs})
    value = {"match": {"vendor": vendor, "model": model}}
    value.update(want)
    value["why"] = ("%s Table 8 (high-performance set on 3PAR): deadline, nr_requests 1024, rotational 0"
                    % SUPERDOME)
    fixed = sorted(d["name"] for d in devs if set((d.get("scheduler") or {}).get("available") or ()) <= {"none"})
    if fixed:
        kept += (" %s offer(s) no I/O scheduler to choose (a map's paths schedule for it): set where offered."
                 % ", ".join(fixed[:6]))
    kept += " max_sectors_kb is 512 KB in both of Table 8's sets (Table 13 too): not a change it measured, not set."
    return Entry(table="block", array=True, value=value, source=(SUPERDOME,), plans=("block.",), note=(
        "%s %s: %d device(s) (%s%s). Now: scheduler %s, %s." % (vendor, model, len(devs), _wwn_prefix(devs),
                                                               ", ".join(sorted(d["name"] for d in devs)[:6])
                                                               + (", ..." if len(devs) > 6 else ""),
                                                               "/".join(schedulers), now),
        "%s Table 8's high-performance set for these LUNs (FIO runs; the paper gives no Oracle figure per "
        "setting); oracle-numa's rule says the same, restated with the host's values.%s" % (SUPERDOME, kept)))


def _opt_in(vendor, model):
    yield Entry(table="block", array=True, source=(SUPERDOME,), value={
        "match": {"vendor": vendor, "model": model}, "queue_depth": 128, "nomerges": 1,
        "why": "%s Table 8: queue_depth 128 (32 in the low-performance set), nomerges 1" % SUPERDOME},
        question="Can every array target port take all hosts' paths x LUNs x 128 (QUEUE FULL otherwise), and is "
                 "the I/O mostly random (nomerges 1 also stops merging redo, RMAN and full-scan reads)?",
        note=("%s Table 8's high-performance set also raises queue_depth from 32 to 128 and turns merging off; "
              "both depend on the array's port queues and the workload." % SUPERDOME,))
    yield Entry(table="block", array=True, source=(SUPERDOME,), value={
        "match": {"vendor": vendor, "model": model}, "cache_type": "write through",
        # Un-commenting it is the answer: the array's cache is protected.
        "acknowledge_volatile_cache_risk": True,
        "why": "%s Tables 8 and 13: cache_type write through (write back in the low-performance set; RHEL only)"
               % SUPERDOME},
        question="Is the array's write cache battery- or flash-backed, so that the LUNs need no cache flush from "
                 "the host?",
        note=("%s Tables 8 and 13 set the LUNs' cache_type to write through: the kernel then sends no cache "
              "flushes to them, which loses acknowledged writes on power loss unless the array's cache is "
              "protected." % SUPERDOME,))


def recommend(facts):
    devices = (facts.get("storage") or {}).get("devices") or {}
    for (vendor, model), devs in sorted(_arrays(devices).items()):
        if (vendor, model) in KNOWN:
            yield _rule(vendor, model, devs)
            yield from _opt_in(vendor, model)
        else:
            yield note("block", "%s %s: %d device(s) (%s%s): no paper or vendor guidance numatune knows covers "
                       "this device, so nothing is set for it." % (
                           vendor, model, len(devs), _wwn_prefix(devs), ", ".join(sorted(d["name"] for d in devs)[:6])))
