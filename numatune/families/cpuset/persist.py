"""A cpuset kept across reboots: a libcgroup group (cgconfig recreates
groups at boot and on restart, overwriting live values) or, on cgroup v2, a
systemd slice started by slices.target."""
from numatune.facts.cpulist import format_cpulist, parse_cpulist
from numatune.families.cpuset import cgconfig
from numatune.families.cpuset import facts as cgroups
from numatune.families.cpuset.spec import _finding, _owner_ids, _settings, _why
from numatune.model import Change, Compliant, Write

SLICE_DIR = "/etc/systemd/system"
CGCONFIG_OURS = cgroups.CGCONFIG_DIR + "/numatune.conf"


def persist_mode(spec, mine):
    mode = spec.get("persist", "auto")
    if mode != "auto":
        return mode
    hierarchy = mine.get("hierarchy") or {}
    if hierarchy.get("version") == 2 and mine.get("systemd"):
        return "systemd"
    if mine.get("cgconfig", {}).get("used"):
        return "cgconfig"
    return "none"


def _persist(spec, cpus, mems, mine):
    name, why = spec["name"], _why(spec, "persist")
    mode = persist_mode(spec, mine)
    uid, gid = _owner_ids(spec, mine)
    if mode != "cgconfig":
        yield from _cgconfig_overrides(name, cpus, mems, mine)
    if mode == "none":
        if spec.get("persist") != "none":
            yield _finding(name, "not-persistent", "info", "no libcgroup (cgconfig) or systemd cgroup v2 here: "
                                                          "the cpuset is live only and is gone after a reboot")
        return
    if mode == "systemd":
        unit = name if name.endswith(".slice") else name + ".slice"
        path, wants = "%s/%s" % (SLICE_DIR, unit), cgconfig.slice_wants_path(unit)
        want = {"AllowedCPUs": format_cpulist(cpus), "AllowedMemoryNodes": format_cpulist(mems)}
        have = cgconfig.parse_unit(mine.get("slices", {}).get(path)).get("Slice", {})
        writes = [] if all(have.get(k) == v for k, v in want.items()) else [
            Write(kind="file", path=path, editor="slice_set",
                  args={"settings": want, "description": "numatune cpuset " + name})]
        # Found in the lab's reboot: a slice nothing wants is not started at boot, so its cpuset was gone.
        if mine.get("slices", {}).get(wants) != cgconfig.SLICE_WANTS_TEXT.format(unit=unit):
            writes.append(Write(kind="file", path=wants, editor="slice_wants", args={"unit": unit}))
        if not writes:
            settings = " ".join("%s=%s" % kv for kv in want.items())
            yield Compliant("cpuset.persist:" + name, "cpuset %s: %s at boot" % (name, settings), "cpu",
                            kept_by="systemd slice file %s, started by slices.target (%s)" % (path, wants))
            return
        yield Change(id="cpuset.persist:" + name, area="cpu", target=path,
                     current=" ".join(["%s=%s" % (k, have[k]) for k in want if k in have]
                                      + ["(not started at boot)"] * bool(have and writes[-1].path == wants)) or None,
                     desired=" ".join("%s=%s" % kv for kv in want.items()), scope="persistent",
                     action="set AllowedCPUs/AllowedMemoryNodes in the slice, started at boot by slices.target",
                     why=why, rule="cpuset", writes=writes)
        return
    if isinstance(uid, str):
        uid = gid = None
    hierarchy = mine.get("hierarchy") or {"version": 1, "prefix": "cpuset."}
    settings = [["cpuset." + k[len(hierarchy["prefix"]):], v]
                for k, v in _settings(spec, cpus, mems, dict(hierarchy, version=1))]
    files = mine["cgconfig"]["files"]
    unsafe = [(p, str(e)) for p, e in ((p, _unparsable(t, name)) for p, t in sorted(files.items())) if e]
    if unsafe:
        yield _finding(name, "cgconfig-unparsable", "critical", "%s: %s: not edited; fix it by hand" % unsafe[0])
        return
    holders = [p for p, text in sorted(files.items()) if cgconfig.find_group(text, name)]
    if len(holders) > 1:
        yield _finding(name, "cgconfig-duplicate", "warning", "group %s is defined in %s; cgconfig stops at the "
                                                             "second one" % (name, " and ".join(holders)))
    path = holders[0] if holders else (CGCONFIG_OURS if mine["cgconfig"]["dir"] else cgroups.CGCONFIG)
    have = cgconfig.group_settings(files.get(path), name) or {}
    owner_ok = uid is None or (have.get("uid"), have.get("gid")) in (
        (str(uid), str(gid)), (str(spec["owner"]["uid"]), str(spec["owner"]["gid"])))
    if all(have.get(k) == v for k, v in settings) and owner_ok:
        yield Compliant("cpuset.persist:" + name, "cgroup %s as the policy has it at boot" % name, "cpu",
                        kept_by="cgconfig file %s" % path)
        return
    owner = spec.get("owner") or {}
    yield Change(id="cpuset.persist:" + name, area="cpu", target="%s: group %s" % (path, name),
                 current=" ".join("%s=%s" % (k, have[k]) for k, _ in settings if k in have) or None,
                 desired=" ".join("%s=%s" % (k, v) for k, v in settings), scope="persistent",
                 action="write group %s for cgconfig (it overwrites live values at boot and on restart)" % name,
                 why=why, rule="cpuset",
                 writes=[Write(kind="file", path=path, editor="cgconfig_group",
                               args={"name": name, "settings": settings, "uid": owner.get("uid"),
                                     "gid": owner.get("gid")})])


def _unparsable(text, name):
    try:
        cgconfig.group_settings(text, name)
    except cgconfig.CgconfigError as e:
        return e
    return None


def _cgconfig_overrides(name, cpus, mems, mine):
    """A cgconfig group numatune does not manage still wins at its next start."""
    for path, text in sorted(mine.get("cgconfig", {}).get("files", {}).items()):
        if _unparsable(text, name):
            continue  # the persist step says so
        have = cgconfig.group_settings(text, name)
        if have is None:
            continue
        theirs = {k: have.get("cpuset." + k) for k in ("cpus", "mems")}
        if parse_cpulist(theirs["cpus"]) != cpus or parse_cpulist(theirs["mems"]) != mems:
            yield _finding(name, "cgconfig-overrides", "warning",
                           "%s defines group %s with cpus %s, mems %s: a cgconfig restart or reboot puts those "
                           "back over the live values" % (path, name, theirs["cpus"], theirs["mems"]))
