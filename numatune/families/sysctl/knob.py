"""sysctl: live through /proc/sys, at boot through our sysctl.d file.

"Persisted" means the value that wins at boot is the desired one, so files
that load after ours and set another value are part of the plan: their line is
commented out (journaled) or, with ``foreign_files = "report"``, named.
"""
from numatune.facts import keyvalue, manifest, routes
from numatune.families.sysctl import facts as facts_sysctl
from numatune.families.sysctl import minimum, numbers, spelling, support
from numatune.model import Change, Compliant, Finding, Write
from numatune.policy.schema import WHY, Either, Scalar, SchemaError, Table

NAME = "sysctl"
MARK = facts_sysctl.MARK
HEADER = ("# Managed by numatune (%s). Changes here are overwritten by\n"
          "# `numatune apply` and restored by `numatune revert`.\n" % facts_sysctl.OURS)

# Dots separate levels; no '/', no empty or '..' component: a key is never a path trick.
KEY_RE = r"^[a-z][a-z0-9_]*(\.[A-Za-z0-9_:-]+)+$"
VALUE = Scalar(int, str, check=lambda v: "must be one line" if isinstance(v, str) and "\n" in v else None)
# A floor, not a value: a host already higher keeps its value (per field for tcp_rmem's three).
AT_LEAST = Scalar(int, str, check=minimum.problem)
POLICY = {
    "sysctl": Table(
        extra=Either(VALUE, Table({"value": VALUE, "at_least": AT_LEAST, "why": WHY})),
        extra_key=KEY_RE,
        extra_doc="sysctl names look like kernel.numa_balancing",
        whole_entries=True),
}
# Knobs that act between NUMA nodes only: on a host with one node now and at the next boot
# (most VMs) their drift costs nothing, so it is info, never what makes `check` warn or fail there.
NODE_KNOBS = ("kernel.numa_balancing", "vm.zone_reclaim_mode")
# Keys other families own; setting them here would make two rules fight.
OWNED_ELSEWHERE = {"vm.nr_hugepages": "[hugepages] count", "vm.nr_hugepages_mempolicy": "[hugepages]"}


# A tuned host sets tens of sysctls; a whole /proc/sys is about 1,000 to
# 2,000 keys. More than that is a generated policy gone wrong, and each key is
# read, planned and journaled (20,000 keys planned for 30 s, #28).
MAX_KEYS = 2000


def check_policy(data):
    if len(data.get("sysctl", {})) > MAX_KEYS:
        yield SchemaError("sysctl", "[sysctl] sets %d keys, more than %d" % (len(data["sysctl"]), MAX_KEYS),
                          "keep the keys you mean to tune; a whole /proc/sys holds about 2,000")
    for key, spec in data.get("sysctl", {}).items():
        if key in OWNED_ELSEWHERE:
            yield SchemaError("sysctl.%s" % key, "sysctl.%s conflicts with %s" % (key, OWNED_ELSEWHERE[key]),
                              "set it in %s only" % OWNED_ELSEWHERE[key])
        if isinstance(spec, dict) and ("value" in spec) == ("at_least" in spec):
            yield SchemaError("sysctl.%s" % key, "sysctl.%s needs exactly one of value and at_least" % key,
                              "value = N sets N; at_least = N raises a lower value to N and keeps a higher one",
                              parts=("sysctl", key))


def check_host(data, root):
    """A key neither this kernel nor numatune knows, one edit from one they do, is a typo: the policy is
    refused before anything is read or written, as a misspelled table key is."""
    unknown = [key for key in data.get("sysctl", {}) if spelling.unknown(root, key)]
    walked = {}
    for key in unknown[:spelling.MAX_SUGGESTED]:    # past those, a policy written for another kernel
        meant = spelling.typo_of(root, key, walked)
        if meant:
            yield SchemaError("sysctl.%s" % key, "unknown sysctl key %r (did you mean %r?)" % (key, meant),
                              "neither this kernel nor numatune knows it; fix the key's spelling",
                              parts=("sysctl", key))


def rules(data):
    """[(key, kind, value, why)] from the [sysctl] table; kind "value" or "at_least"."""
    return [(key,) + minimum.spec_of(spec) for key, spec in data.get("sysctl", {}).items()]


def area_of(key):
    if key.startswith("vm."):
        return "memory"
    if key.startswith("net."):
        return "network"
    return "kernel"


def read(root, data, extra_keys=()):
    keys = [r[0] for r in rules(data)] + list(extra_keys)
    live = facts_sysctl.read_live(root, keys)
    missing = [r[0] for r in rules(data) if live.get(r[0]) is None]
    out = {"live": live, "files": facts_sysctl.read_files(root), "near": spelling.read(root, missing)}
    if any(v is None for v in live.values()):
        # Why a key is missing: the kernel's version, and what a capture tried.
        out["missing"] = {"is_live": root.is_live, "patterns": manifest.read_patterns(root),
                          "release": root.read_value("/proc/sys/kernel/osrelease")
                          or root.read_value("/proc/version") or ""}
    return out


def persist(key, desired, why, facts, data, area=None, live_supported=True, at_least=None, route=None):
    """Changes and findings that make ``desired`` win at boot; with ``at_least``
    any boot value at or above that minimum (per field) will do, and ``desired``
    (the value written live) is what our file gets when one is needed.

    ``route``: another mechanism keeps the key (numatune.facts.routes). tuned
    re-applies the sysctl.d files after its profile (its reapply_sysctl, on
    by default), so a file that sets another value still wins there."""
    def ok(value):
        return value == desired if at_least is None else bool(minimum.meets(value, at_least))
    files = facts["files"]
    area = area or area_of(key)
    foreign = data.get("policy", {}).get("foreign_files", "edit")
    ours = facts_sysctl.OURS
    paths = [f["path"] for f in files]
    after_ours = paths[paths.index(ours) + 1:] if ours in paths else []
    win = facts_sysctl.effective(files, key)
    if route:
        if not win or ok(win[0]):
            if route["kept"] or win:
                by = route["by"] if route["kept"] or not win else "sysctl.d file %s:%d" % win[1:]
                yield Compliant("sysctl.persist:" + key, "%s = %s at boot (%s)" % (key, desired, by), area,
                                kept_by=by)
            return  # otherwise the route's own change carries it
        after_ours = [p for p in paths if p != ours]
    runtime = [f["path"] for f in files if f["path"] in after_ours and key in f.get("marked", ())]
    for path in runtime:
        yield Finding(id="sysctl.runtime-file:%s@%s" % (key, path), severity="warning", area=area, target=path,
                      rule="sysctl." + key, live_only=True,
                      message="numatune commented out %s in %s, but /run is rebuilt at each boot: whatever writes "
                              "that file puts the line back, and %s = %s is lost at boot" % (key, path, key, desired),
                      why="change the tool that writes %s (a tuned profile's [sysctl]?)" % path)
    if win and ok(win[0]) and not runtime:
        yield Compliant("sysctl.persist:" + key, "%s = %s at boot%s" % (key, win[0], _floor_text(win[0], at_least)),
                        area, kept_by="sysctl.d file %s:%d" % (win[1], win[2]))
        return
    ours_value = facts_sysctl.effective([f for f in files if f["path"] == ours], key)
    if (not ours_value and not route) or (ours_value and not ok(ours_value[0])):
        yield Change(
            id="sysctl.persist:" + key, area=area, target="%s: %s" % (ours, key),
            current=win[0] if win else None, desired=desired, scope="persistent",
            action="set in %s" % ours, why=why, rule="sysctl." + key,
            writes=[Write(kind="file", path=ours, editor="sysctl_set", args={"key": key, "value": desired})])
    for f in files:
        if f["path"] not in after_ours:
            continue
        for number, k, value in f["settings"]:
            if k != key or ok(value):
                continue
            if foreign == "report":
                yield Finding(
                    id="sysctl.override:%s@%s" % (key, f["path"]), severity="warning", area=area,
                    target=f["path"], rule="sysctl." + key, live_only=True,
                    message="%s:%d sets %s = %s after numatune's file, so %s is lost at boot"
                            % (f["path"], number, key, value, desired))
            else:
                if f["path"].startswith(facts_sysctl.RUNTIME):
                    yield Finding(
                        id="sysctl.runtime-file:%s@%s" % (key, f["path"]), severity="warning", area=area,
                        target=f["path"], rule="sysctl." + key,
                        message="%s:%d sets %s = %s after numatune's file; commenting it out holds until the next "
                                "boot only (/run is rebuilt at boot by whatever wrote it)"
                                % (f["path"], number, key, value),
                        why="change the tool that writes %s (a tuned profile's [sysctl]?)" % f["path"])
                yield Change(
                    id="sysctl.override:%s@%s" % (key, f["path"]), area=area,
                    target="%s:%d: %s" % (f["path"], number, key), current=value, desired="(commented out)",
                    scope="persistent", risk="medium", rule="sysctl." + key,
                    action="comment out a line that loads after %s" % ours,
                    why=why or "a file that loads later would override the policy at boot",
                    writes=[Write(kind="file", path=f["path"], editor="sysctl_disable", args={"key": key})])


def stays_one_node(facts):
    """One NUMA node today and at the next boot, as far as the host shows:
    a kernel booted with numa=off shows one node whatever the machine has
    (and a policy that removes numa=off brings the others back at the next
    boot), and several sockets are several nodes once NUMA is on."""
    summary = (facts.get("topology") or {}).get("summary", {})
    cmdline = (facts.get("host") or {}).get("cmdline") or ()
    return summary.get("nodes") == 1 and (summary.get("sockets") or 1) <= 1 and "numa=off" not in cmdline


def diff(data, facts):
    one_node = stays_one_node(facts)
    for item in _diff(data, facts):
        if one_node and getattr(item, "rule", "").startswith("sysctl.") and item.rule[7:] in NODE_KNOBS:
            item = _one_node(item)
        yield item


def _one_node(item):
    """A NUMA-only knob on a one-node host: still planned, but its drift is info."""
    if isinstance(item, Change):
        item.drift_severity = "info"
    elif isinstance(item, Finding) and item.severity == "warning" and item.id.startswith("sysctl.not-captured:"):
        item.severity = "info"
        item.message += " (one NUMA node: the knob has no effect here)"
    return item


def _diff(data, facts):
    mine = facts[NAME]
    unknown = 0
    for key, kind, wanted, why in rules(data):
        live = mine["live"].get(key)
        area = area_of(key)
        if live is None and not spelling.known(key):
            # Neither the kernel nor the list of known keys has it: most likely a typo,
            # and a rule that would silently do nothing.
            unknown += 1
            guess = spelling.suggest(key, mine.get("near", {}).get(key, ())) \
                if unknown <= spelling.MAX_SUGGESTED else None
            # Critical: apply cannot meet the policy, and must not exit 0 as if it had.
            yield Finding(id="sysctl.unknown:" + key, severity="critical", area=area, target=key,
                          rule="sysctl." + key,
                          message="%s is not a sysctl key this kernel or numatune knows%s: not set"
                                  % (key, " (did you mean %s?)" % guess if guess else ""),
                          why="fix or remove the key in the policy")
            continue
        floor = wanted if kind == "at_least" else None
        if live is None:
            yield from _missing(key, minimum.raised(None, wanted) if floor else wanted, why, mine, data, area,
                                floor, routes.route(facts, "sysctl", key))
            continue
        desired = minimum.raised(live, floor) if floor else wanted
        if desired is None:
            yield Finding(id="sysctl.not-comparable:" + key, severity="warning", area=area, target=key,
                          rule="sysctl." + key,
                          message="%s = %s cannot be compared field by field with at_least %s: not set"
                                  % (key, live, floor),
                          why="give at_least as many integers as the key has fields, or use value")
            continue
        word = numbers.refused(key, live, desired) if live != desired else None
        if word is not None:
            yield Finding(id="sysctl.not-integer:" + key, severity="critical", area=area, target=key,
                          rule="sysctl." + key,
                          message="%s holds integers (now %s): the kernel would refuse %s: not set"
                                  % (key, live, numbers.refusal_text(word, desired)),
                          why="give the value as integers, as the kernel shows them")
            continue
        if live != desired:
            action = "write %s" % facts_sysctl.key_path(key)
            if floor and minimum.above(live, floor):
                action += " (fields below the minimum %s raised; the host's higher fields kept)" % floor
            yield Change(
                id="sysctl.live:" + key, area=area, target=key, current=live, desired=desired,
                scope="live", action=action, why=why, rule="sysctl." + key,
                writes=[Write(kind="value", path=facts_sysctl.key_path(key), value=desired, format="words")])
        else:
            yield Compliant("sysctl.live:" + key, "%s = %s live%s" % (key, desired, _floor_text(live, floor)), area)
        yield from persist(key, desired, why, mine, data, area, at_least=floor,
                           route=routes.route(facts, "sysctl", key))


def _floor_text(have, floor):
    """What the plan says of an at_least rule a value meets."""
    if floor is None:
        return ""
    if minimum.above(have, floor):
        if len(floor.split()) > 1:
            return ", already at or above the minimum %s in every field: kept" % floor
        return ", already above the minimum %s: kept" % floor
    return ", the minimum %s" % floor


def _missing(key, desired, why, mine, data, area, floor=None, route=None):
    """A key without its /proc/sys file: not supported, or only not captured."""
    info = mine.get("missing") or {}
    answer, reason = support.support(key, facts_sysctl.key_path(key), info.get("is_live", False),
                                     info.get("patterns"), info.get("release", ""))
    if answer == "no":
        yield Finding(id="sysctl.unsupported:" + key, severity="info", area=area, target=key, rule="sysctl." + key,
                      message="%s is not supported on this kernel (%s): not set" % (key, reason))
        return
    if answer == "unknown":
        yield Finding(id="sysctl.not-captured:" + key, severity="warning", area=area, target=key,
                      rule="sysctl." + key,
                      message="%s: %s: cannot tell whether it is set; not planned" % (key, reason))
        return
    # The kernel has it: the next boot gets it from sysctl.d, whatever the capture lacks.
    yield Finding(id="sysctl.not-captured:" + key, severity="info", area=area, target=key, rule="sysctl." + key,
                  message="%s: %s: its live value is not known; persisted for the next boot" % (key, reason))
    yield from persist(key, desired, why, mine, data, area, at_least=floor, route=route)


# Editors: pure functions from a file's current text (None: absent) to its new text.

def _line_key(line):
    stripped = line.strip()
    if not stripped or stripped[0] in "#;" or "=" not in stripped:
        return None
    return stripped.partition("=")[0].strip().lstrip("-").replace("/", ".")


def sysctl_set(text, key, value):
    return keyvalue.set_key(text, key, value, _line_key, HEADER)


def sysctl_disable(text, key):
    if text is None:
        return None
    out = []
    for line in text.splitlines(True):
        out.append(MARK + line if _line_key(line) == key else line)
    return "".join(out)


EDITORS = {"sysctl_set": sysctl_set, "sysctl_disable": sysctl_disable}
