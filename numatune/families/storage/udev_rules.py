"""numatune's udev rules file: generate it, parse it back, and tell which
devices a rule matches.

A rule is a list of match keys and one assignment, one rule per setting, so
udev gives hot-added paths the same queue settings as `apply` gives the
devices present now. The parser reads the subset of udev syntax the
generator writes (and the usual ==, !=, = with "|" alternatives), because
`udevadm verify` needs a newer systemd than RHEL 9 ships.
"""
import fnmatch
import re

from numatune.families.storage.facts import NAME_KINDS, normalize_wwn

PATH = "/etc/udev/rules.d/90-numatune.rules"
HEADER = ("# Managed by numatune (%s): block queue settings of the [[block]] policy,\n"
          "# so devices added later (new paths, new LUNs) get them too.\n"
          "# Changes here are overwritten by `numatune apply` and restored by `numatune revert`.\n" % PATH)
# Kernel names of the kinds that are not plain disks (see facts.block.NAME_KINDS).
NOT_DISK = "loop*|nvme*|md*|sr*|ram*|zram*|nbd*|dm-*"
KIND_KEYS = {
    "disk": [("KERNEL", "!=", NOT_DISK)],
    "dm-multipath": [("KERNEL", "==", "dm-*"), ("ENV{DM_UUID}", "==", "mpath-*")],
    "dm": [("KERNEL", "==", "dm-*"), ("ENV{DM_UUID}", "!=", "mpath-*")],
}
_KEY_RE = re.compile(r'\s*([A-Z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')


class RuleSyntaxError(ValueError):
    pass


def quote(value):
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def selector_keys(match):
    """udev match keys for a policy ``match`` table (None: not expressible)."""
    keys = [("ACTION", "==", "add|change"), ("SUBSYSTEM", "==", "block"), ("ENV{DEVTYPE}", "==", "disk")]
    for field in sorted(match):
        value = match[field]
        if field == "name":
            keys.append(("KERNEL", "==", "|".join(value) if isinstance(value, list) else value))
        elif field == "kind":
            keys.extend(KIND_KEYS.get(value) or [("KERNEL", "==", value_pattern(value))])
        elif field in ("vendor", "model"):
            keys.append(("ATTRS{%s}" % field, "==", value))
        elif field == "rotational":
            keys.append(("ATTR{queue/rotational}", "==", "1" if value else "0"))
        elif field == "wwn":
            keys.append(("ENV{ID_WWN_WITH_EXTENSION}", "==", "0x" + normalize_wwn(value)))
        elif field == "dm_name":
            keys.append(("ENV{DM_NAME}", "==", value))
        elif field == "udev":
            for prop in sorted(value):
                keys.append(("ENV{%s}" % prop, "==", value[prop]))
    return keys


def value_pattern(kind):
    return "|".join(p for p, k in NAME_KINDS if k == kind) or kind


def format_rule(keys, assign):
    parts = ['%s%s"%s"' % (k, op, quote(v)) for k, op, v in keys]
    # RUN adds to the programs earlier rules queued; an ATTR is assigned.
    parts.append('%s%s"%s"' % (assign[0], "+=" if assign[0] == "RUN" else "=", quote(assign[1])))
    return ", ".join(parts)


def render(entries):
    """File text for [(comment, keys, (attr_key, value))], in order."""
    out = [HEADER]
    last = None
    for comment, keys, assign in entries:
        if comment != last:
            out.append("\n# %s\n" % comment.replace("\n", " "))
            last = comment
        out.append(format_rule(keys, assign) + "\n")
    return "".join(out)


def _logical_lines(text):
    buf, start = "", None
    for number, line in enumerate(text.splitlines(), 1):
        if start is None:
            start = number
        if line.endswith("\\"):
            buf += line[:-1]
            continue
        yield start, buf + line
        buf, start = "", None
    if buf:
        yield start, buf


def parse(text):
    """[(keys, [(attr_key, value)])] of every rule, comments and blanks skipped."""
    rules = []
    for number, line in _logical_lines(text or ""):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        keys, assigns, pos = [], [], 0
        while pos < len(line):
            m = _KEY_RE.match(line, pos)
            if not m:
                if line[pos:].strip():
                    raise RuleSyntaxError("line %d: cannot parse %r" % (number, line[pos:].strip()[:40]))
                break
            key, op, value = m.group(1), m.group(2), re.sub(r"\\(.)", r"\1", m.group(3))
            if op in ("==", "!="):
                keys.append((key, op, value))
            else:
                assigns.append((key, value))
            pos = m.end()
        rules.append((keys, assigns))
    return rules


# "ENV{DM_UUID}" -> ("ENV", "DM_UUID"), split once per key, not once per device.
_KEY_PARTS = {}


def _key_parts(key):
    parts = _KEY_PARTS.get(key)
    if parts is None:
        m = re.match(r"^(ENV|ATTRS?)\{(.+)\}$", key)
        parts = _KEY_PARTS[key] = m.groups() if m else ()
    return parts


def _lookup(device, key):
    """The value a match key sees on a device from the facts (None: unknown)."""
    if key == "KERNEL":
        return device["name"]
    if key == "SUBSYSTEM":
        return "block"
    if key == "ACTION":
        return "add"
    parts = _key_parts(key)
    if not parts:
        return None
    kind, name = parts
    if kind == "ENV":
        value = device["udev"].get(name)
        # udev's own dm rules always set these; a snapshot may lack the database.
        if value is None and name == "DM_NAME":
            value = device.get("dm_name")
        if value is None and name == "DM_UUID":
            value = device.get("dm_uuid")
        return value
    if name == "queue/scheduler" and kind == "ATTR" and "scheduler" in device:
        return _scheduler_text(device["scheduler"])
    value = device.get("attrs", {}).get(name)
    # udev ignores trailing blanks of sysfs values (SCSI pads vendor/model).
    return None if value is None else value.rstrip()


_SCHEDULER_TEXTS = {}


def _scheduler_text(sched):
    """The queue/scheduler file as the kernel shows it ("mq-deadline kyber [none]"),
    or None: worked out once per scheduler state, not per device (5,000)."""
    state = (sched["current"], tuple(sched["available"]))
    got = _SCHEDULER_TEXTS.get(state, False)
    if got is False:
        got = " ".join("[%s]" % n if n == state[0] else n for n in state[1]) or None
        if len(_SCHEDULER_TEXTS) < 256:   # a few states a host: never a store of every one seen
            _SCHEDULER_TEXTS[state] = got
    return got


_GLOB = set("*?[")


def _alternatives(pattern, _cache={}):
    """(exact set, glob list) of a udev pattern's '|' alternatives, parsed once:
    a multipath rule lists 1,024 serials and is matched against every device."""
    parsed = _cache.get(pattern)
    if parsed is None:
        alts = pattern.split("|")
        parsed = ({a for a in alts if not _GLOB & set(a)}, [a for a in alts if _GLOB & set(a)])
        _cache[pattern] = parsed
    return parsed


def key_matches(device, key, op, pattern):
    value = _lookup(device, key)
    hit = False
    if value is not None:
        exact, globs = _alternatives(pattern)
        hit = value in exact or any(fnmatch.fnmatchcase(value, alt) for alt in globs)
    if op == "!=":
        # udev: a missing ENV value is the empty string, which != matches.
        return not hit
    return hit


def matches(keys, device):
    return all(key_matches(device, k, op, v) for k, op, v in keys)


# The memo of matching() for the last devices dict asked about: the desired rules,
# the coverage of the rules on file and of the wanted ones test the same keys (the
# three of every rule, a vendor) on the same 5,000 devices of one plan. Keyed by
# identity, the dict held here (a new plan's facts are a new dict).
_last_memo = [None, None]


def memo_for(devices):
    """matching()'s memo for ``devices``, one per plan, shared by its callers."""
    if _last_memo[0] is not devices:
        _last_memo[:] = [devices, {}]
    return _last_memo[1]


_NO_ATTRS = {}
# What _lookup falls back on for these ENV keys.
_ENV_FALLBACK = {"DM_NAME": "dm_name", "DM_UUID": "dm_uuid"}


def _names_matching(key, devices):
    """frozenset(n for n, d in devices.items() if key_matches(d, *key)), with
    the key parsed and its globs compiled once for all the devices (5,000
    on a giant host; an ENV key, the most asked, looked up inline)."""
    name, op, pattern = key
    exact, globs = _alternatives(pattern)
    globs = [_glob_match(globs)] if globs else []
    want = op != "!="
    parts = _key_parts(name)
    env = parts[1] if parts and parts[0] == "ENV" else None
    fallback = _ENV_FALLBACK.get(env)
    out = []
    if name in ("SUBSYSTEM", "ACTION"):
        value = _lookup(None, name)     # the same on every device
        hit = value in exact or any(m(value) is not None for m in globs)
        return frozenset(devices) if hit is want else frozenset()
    kernel = name == "KERNEL"
    # An attribute a udev rule's ATTR{}/ATTRS{} reads from the record's attrs, as _lookup
    # does (the scheduler file is made from the record's scheduler: _lookup's).
    attr = parts[1] if parts and parts[0] != "ENV" and parts[1] != "queue/scheduler" else None
    # Each value tested once: most devices show one of a few (a vendor, a model, a scheduler file).
    answers = {}
    for n, d in devices.items():
        if attr is not None:
            value = d.get("attrs", _NO_ATTRS).get(attr)
            if value is not None:
                value = value.rstrip()  # udev ignores trailing blanks of sysfs values
        elif env is None:
            value = d["name"] if kernel else _lookup(d, name)
        else:
            value = d["udev"].get(env)
            if value is None and fallback:
                value = d.get(fallback)
        hit = answers.get(value)
        if hit is None:
            if globs:
                hit = value is not None and (value in exact or any(m(value) is not None for m in globs))
            else:
                hit = value in exact    # None never is
            if not kernel:  # a name is every device's own
                answers[value] = hit
        if hit is want:
            out.append(n)
    return frozenset(out)


def _glob_match(patterns):
    """What fnmatch.fnmatchcase does per call, for any of ``patterns``, compiled
    once into one expression: a name tested against NOT_DISK's eight globs is
    one match, not eight (each translation ends at the end of the text, so the
    alternation matches where one of them does)."""
    return re.compile("|".join("(?:%s)" % fnmatch.translate(p) for p in patterns)).match


def matching(keys, devices, memo):
    """The names of ``devices`` that every key of a rule matches. ``memo``
    ({key: names}, one per ``devices``) keeps each key's answer across the
    rules of a file: they share most keys (the three of every rule, a vendor),
    and a giant host has 5,000 devices to test each key on. A rule's whole
    list of keys is kept too (under the tuple of them, never a key itself):
    a plan asks about one rule several times, and each intersection of two
    keys' answers walks thousands of names. Callers only read the answer."""
    if not keys:
        return set(devices)
    whole = tuple(keys)
    hit = memo.get(whole)
    if hit is not None:
        return hit
    for key in keys:
        names = memo.get(key)
        if names is None:
            names = memo[key] = _names_matching(key, devices)
        hit = names if hit is None else hit & names
        if not hit:
            break
    memo[whole] = hit
    return hit


def effective(rules, device):
    """{attr_key: value} the rules would assign to ``device``, last one wins."""
    out = {}
    for keys, assigns in rules:
        if matches(keys, device):
            for key, value in assigns:
                out[key] = value
    return out
