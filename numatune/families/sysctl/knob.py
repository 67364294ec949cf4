"""sysctl: live through /proc/sys, at boot through our sysctl.d file.

"Persisted" means the value that wins at boot is the desired one, so files
that load after ours and set another value are part of the plan: their line is
commented out (journaled) or, with ``foreign_files = "report"``, named.
"""
from numatune.facts import manifest
from numatune.families.sysctl import facts as facts_sysctl
from numatune.families.sysctl import spelling, support
from numatune.model import Change, Compliant, Finding, Write
from numatune.policy.schema import WHY, Either, Scalar, SchemaError, Table

NAME = "sysctl"
MARK = facts_sysctl.MARK
HEADER = ("# Managed by numatune (%s). Changes here are overwritten by\n"
          "# `numatune apply` and restored by `numatune revert`.\n" % facts_sysctl.OURS)

# Dots separate levels; no '/', no empty or '..' component: a key is never a path trick.
KEY_RE = r"^[a-z][a-z0-9_]*(\.[A-Za-z0-9_:-]+)+$"
VALUE = Scalar(int, str, check=lambda v: "must be one line" if isinstance(v, str) and "\n" in v else None)
POLICY = {
    "sysctl": Table(
        extra=Either(VALUE, Table({"value": VALUE, "why": WHY})),
        extra_key=KEY_RE,
        extra_doc="sysctl names look like kernel.numa_balancing"),
}
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
    for key in data.get("sysctl", {}):
        if key in OWNED_ELSEWHERE:
            yield SchemaError("sysctl.%s" % key, "sysctl.%s conflicts with %s" % (key, OWNED_ELSEWHERE[key]),
                              "set it in %s only" % OWNED_ELSEWHERE[key])


def rules(data):
    """[(key, value, why)] from the [sysctl] table."""
    out = []
    for key, spec in data.get("sysctl", {}).items():
        if isinstance(spec, dict):
            out.append((key, facts_sysctl.normalize(spec["value"]), spec.get("why", "")))
        else:
            out.append((key, facts_sysctl.normalize(spec), ""))
    return out


def area_of(key):
    if key.startswith("vm."):
        return "memory"
    if key.startswith("net."):
        return "network"
    return "kernel"


def read(root, data, extra_keys=()):
    keys = [k for k, _, _ in rules(data)] + list(extra_keys)
    live = facts_sysctl.read_live(root, keys)
    missing = [k for k, _, _ in rules(data) if live.get(k) is None]
    out = {"live": live, "files": facts_sysctl.read_files(root), "near": spelling.read(root, missing)}
    if any(v is None for v in live.values()):
        # Why a key is missing: the kernel's version, and what a capture tried.
        out["missing"] = {"is_live": root.is_live, "patterns": manifest.read_patterns(root),
                          "release": root.read_value("/proc/sys/kernel/osrelease")
                          or root.read_value("/proc/version") or ""}
    return out


def persist(key, desired, why, facts, data, area=None, live_supported=True):
    """Changes and findings that make ``desired`` win at boot."""
    files = facts["files"]
    area = area or area_of(key)
    foreign = data.get("policy", {}).get("foreign_files", "edit")
    ours = facts_sysctl.OURS
    paths = [f["path"] for f in files]
    after_ours = paths[paths.index(ours) + 1:] if ours in paths else []
    win = facts_sysctl.effective(files, key)
    runtime = [f["path"] for f in files if f["path"] in after_ours and key in f.get("marked", ())]
    for path in runtime:
        yield Finding(id="sysctl.runtime-file:%s@%s" % (key, path), severity="warning", area=area, target=path,
                      rule="sysctl." + key,
                      message="numatune commented out %s in %s, but /run is rebuilt at each boot: whatever writes "
                              "that file puts the line back, and %s = %s is lost at boot" % (key, path, key, desired),
                      why="change the tool that writes %s (a tuned profile's [sysctl]?)" % path)
    if win and win[0] == desired and not runtime:
        yield Compliant("sysctl.persist:" + key, "%s = %s at boot (%s:%d)" % (key, desired, win[1], win[2]), area)
        return
    ours_value = facts_sysctl.effective([f for f in files if f["path"] == ours], key)
    if not ours_value or ours_value[0] != desired:
        yield Change(
            id="sysctl.persist:" + key, area=area, target="%s: %s" % (ours, key),
            current=win[0] if win else None, desired=desired, scope="persistent",
            action="set in %s" % ours, why=why, rule="sysctl." + key,
            writes=[Write(kind="file", path=ours, editor="sysctl_set", args={"key": key, "value": desired})])
    for f in files:
        if f["path"] not in after_ours:
            continue
        for number, k, value in f["settings"]:
            if k != key or value == desired:
                continue
            if foreign == "report":
                yield Finding(
                    id="sysctl.override:%s@%s" % (key, f["path"]), severity="warning", area=area,
                    target=f["path"], rule="sysctl." + key,
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


def diff(data, facts):
    mine = facts[NAME]
    for key, desired, why in rules(data):
        live = mine["live"].get(key)
        area = area_of(key)
        if live is None and not spelling.known(key):
            # Neither the kernel nor the list of known keys has it: most likely a typo,
            # and a rule that would silently do nothing.
            guess = spelling.suggest(key, mine.get("near", {}).get(key, ()))
            yield Finding(id="sysctl.unknown:" + key, severity="warning", area=area, target=key,
                          rule="sysctl." + key,
                          message="%s is not a sysctl key this kernel or numatune knows%s: not set"
                                  % (key, " (did you mean %s?)" % guess if guess else ""),
                          why="fix or remove the key in the policy")
            continue
        if live is None:
            yield from _missing(key, desired, why, mine, data, area)
            continue
        if live != desired:
            yield Change(
                id="sysctl.live:" + key, area=area, target=key, current=live, desired=desired,
                scope="live", action="write %s" % facts_sysctl.key_path(key), why=why, rule="sysctl." + key,
                writes=[Write(kind="value", path=facts_sysctl.key_path(key), value=desired, format="words")])
        else:
            yield Compliant("sysctl.live:" + key, "%s = %s live" % (key, desired), area)
        yield from persist(key, desired, why, mine, data, area)


def _missing(key, desired, why, mine, data, area):
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
    yield from persist(key, desired, why, mine, data, area)


# Editors: pure functions from a file's current text (None: absent) to its new text.

def _line_key(line):
    stripped = line.strip()
    if not stripped or stripped[0] in "#;" or "=" not in stripped:
        return None
    return stripped.partition("=")[0].strip().lstrip("-").replace("/", ".")


def sysctl_set(text, key, value):
    lines = (text if text is not None else HEADER).splitlines(True)
    out, done = [], False
    for line in lines:
        if _line_key(line) == key:
            if not done:
                out.append("%s = %s\n" % (key, value))
                done = True
            continue
        out.append(line)
    if not done:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append("%s = %s\n" % (key, value))
    return "".join(out)


def sysctl_disable(text, key):
    if text is None:
        return None
    out = []
    for line in text.splitlines(True):
        out.append(MARK + line if _line_key(line) == key else line)
    return "".join(out)


EDITORS = {"sysctl_set": sysctl_set, "sysctl_disable": sysctl_disable}
