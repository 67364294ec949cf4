"""[[block]]: queue and SCSI settings by device selector, live through sysfs
and persistent through numatune's udev rules (plus multipath.conf's managed
section for the arrays a rule names).

A rule that selects a multipath map applies to the map and to every path
under it (``slaves/``), as users of 3PAR and other multipath LUNs expect.
When several rules set the same attribute on a device, the later one wins,
as later policy files win over earlier ones.
"""
import fnmatch
import re

from numatune.facts import routes
from numatune.families.storage import current, facts as facts_block, live, multipath_conf, multipathd, udev_rules
from numatune.families.storage import coverage as block_coverage, persist as block_persist
from numatune.model import Change, Compliant, Finding
from numatune.policy.schema import WHY, Array, Either, Scalar, SchemaError, Table, TableArray
from numatune.families.storage.settings import CACHE_TYPES, FLOOR_ATTRS, SCHEDULERS, settings_of

NAME = "storage"
GLOB = Scalar(str, check=lambda v: "must not be empty" if not v.strip() else None)



def _floor_or_value(scalar):
    """N, or { at_least = N }: a floor that keeps a host value already higher (settings.FLOOR_ATTRS)."""
    return Either(scalar, Table({"at_least": scalar}, doc="at_least = N: raise a lower value to N, keep a higher one"))


MATCH = Table({
    "name": Either(GLOB, Array(GLOB)),
    "kind": Scalar(str, choices=facts_block.KINDS),
    "vendor": GLOB,
    "model": GLOB,
    "rotational": Scalar(bool),
    "udev": Table(extra=GLOB, extra_key=r"^[A-Z][A-Z0-9_]*$", extra_doc="udev properties look like ID_SERIAL"),
    "wwn": GLOB,
    "dm_name": GLOB,
}, doc="which devices: name, kind, vendor, model, rotational, udev, wwn, dm_name")
POLICY = {
    "block": TableArray(Table({
        "match": MATCH,
        "scheduler": Scalar(str, choices=SCHEDULERS),
        "nr_requests": _floor_or_value(Scalar(int, minimum=4, maximum=1 << 20)),
        "max_sectors_kb": Scalar(int, minimum=4, maximum=1 << 31),
        "read_ahead_kb": _floor_or_value(Scalar(int, minimum=0, maximum=1 << 31)),
        "rotational": Scalar(int, bool, choices=(0, 1, False, True)),
        "nomerges": Scalar(int, choices=(0, 1, 2)),
        "rq_affinity": Scalar(int, choices=(0, 1, 2)),
        "queue_depth": Scalar(int, minimum=1, maximum=65535),
        "cache_type": Scalar(str, choices=CACHE_TYPES),
        "acknowledge_volatile_cache_risk": Scalar(bool),
        "multipath": Table(extra=Scalar(str, int, bool), extra_key=r"^[a-z][a-z_]*$",
                           extra_doc="multipath.conf device keys look like rr_min_io_rq"),
        "why": WHY,
    })),
}


def check_policy(data):
    for i, rule in enumerate(data.get("block") or []):
        key = "block[%d]" % i
        if not rule.get("match"):
            yield SchemaError(key, "%s has no match: it would select every device, the boot disk too" % key,
                              'say which devices, e.g. match = { vendor = "3PARdata", model = "VV" }')
        for attr in FLOOR_ATTRS:
            if isinstance(rule.get(attr), dict) and "at_least" not in rule[attr]:
                yield SchemaError("%s.%s" % (key, attr), "%s.%s is a table without at_least" % (key, attr),
                                  "%s = N sets N; %s = { at_least = N } raises a lower value to N and keeps a "
                                  "higher one" % (attr, attr))
        if not settings_of(rule) and "multipath" not in rule:
            yield SchemaError(key, "%s sets nothing" % key, "add scheduler, nr_requests, ... or remove the rule")
        if "rotational" in rule and "rotational" in rule.get("match", {}):
            yield SchemaError(key + ".rotational", "%s matches on rotational and also sets it: after apply it "
                              "would no longer select the same devices" % key, "match on vendor/model instead")
        if "cache_type" in rule and rule.get("acknowledge_volatile_cache_risk") is not True:
            yield SchemaError(key + ".cache_type", "%s.cache_type causes data loss on devices with a volatile "
                              "cache and is refused" % key,
                              "only for arrays with non-volatile cache: add acknowledge_volatile_cache_risk = true")
        if "multipath" in rule and not {"vendor", "model"} <= set(rule.get("match", {})):
            yield SchemaError(key + ".multipath", "%s.multipath needs match.vendor and match.model: they name "
                              "the multipath.conf device entry" % key, 'match = { vendor = "3PARdata", model = "VV" }')
        elif "multipath" in rule:
            for field in ("vendor", "model"):
                value = rule["match"][field]
                if not isinstance(value, str) or '"' in value or "\\" in value:
                    yield SchemaError(key + ".match." + field, "%s.match.%s = %r cannot be written to "
                                      "multipath.conf" % (key, field, value), "one glob without quotes or backslashes")


def _glob(pattern, _cache={}):
    """fnmatch.fnmatchcase(value, pattern) as one call on the value (a match or None, or a
    bool where the pattern holds no wildcard): a policy's few globs against 5,000 devices."""
    test = _cache.get(pattern)
    if test is None:
        test = _cache[pattern] = re.compile(fnmatch.translate(pattern)).match if any(
            c in pattern for c in "*?[") else pattern.__eq__
    return test


def selects(match, dev):
    for field, want in match.items():
        if field == "name":
            if not any(fnmatch.fnmatchcase(dev["name"], p) for p in (want if isinstance(want, list) else [want])):
                return False
        elif field == "kind":
            if dev["kind"] != want:
                return False
        elif field == "rotational":
            if dev["rotational"] is None or bool(dev["rotational"]) != want:
                return False
        elif field == "wwn":
            if not dev["wwn"] or not fnmatch.fnmatchcase(facts_block.normalize_wwn(dev["wwn"]),
                                                         facts_block.normalize_wwn(want)):
                return False
        elif field == "udev":
            if not all(k in dev["udev"] and fnmatch.fnmatchcase(dev["udev"][k], v) for k, v in want.items()):
                return False
        elif not dev.get(field) or not _glob(want)(dev[field]):
            return False  # vendor, model, dm_name
    return True


# Fields whose values most devices share (a giant host's LUNs: one vendor, one model).
_SHARED_FIELDS = frozenset(("kind", "rotational", "vendor", "model"))


def _selector(match):
    """selects(match, ·) as one test per device: a match on fields most devices share
    is worked out once per distinct set of their values, not per device (5,000)."""
    if not match or not _SHARED_FIELDS.issuperset(match):
        return lambda dev: selects(match, dev)
    fields, answers = sorted(match), {}

    def test(dev):
        values = tuple(map(dev.get, fields))
        got = answers.get(values)
        if got is None:
            got = answers[values] = selects(match, dev)
        return got
    return test


def _natural(name, _cache={}):
    # Memoized: 5,000 device names are sorted several times per plan.
    key = _cache.get(name)
    if key is None:
        key = _cache[name] = [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]
    return key


# The last answer of select() with the objects it was for: the facts' read, the diff,
# and tuned's routes (twice) ask the same of one plan's policy and devices (5,000 on a
# giant host, 0.6 s each). Identity, not equality: the objects are held here, so their
# ids cannot be reused; a new plan's facts are new objects. Callers only read the answer.
_last_select = [None, None, None]


def select(data, devices):
    """[(index, rule, direct, expanded, via)] and {device: {attr: (value, index)}}."""
    if _last_select[0] is data and _last_select[1] is devices:
        return _last_select[2]
    got = _select(data, devices)
    _last_select[:] = [data, devices, got]
    return got


def _select(data, devices):
    per_rule, assigned = [], {}
    for i, rule in enumerate(data.get("block") or []):
        test = _selector(rule["match"])
        direct = sorted((n for n, d in devices.items() if test(d)), key=_natural)
        expanded, via = list(direct), {}
        seen = set(direct)  # 4,096 paths: a list lookup here made planning quadratic
        for name in direct:
            dev = devices[name]
            if dev["kind"] != "dm-multipath":
                continue
            for slave in dev["slaves"]:
                if slave in devices and slave not in seen:
                    seen.add(slave)
                    expanded.append(slave)
                    via[slave] = dev["dm_name"] or name
        per_rule.append((i, rule, direct, expanded, via))
        given = [(attr, (value, i)) for attr, value in settings_of(rule).items()]
        if not given:
            continue
        # Devices the same rules set share one dict of their settings (8,192 devices x 7 on the dm
        # shape), never changed once made: a later rule gives them a new one. Keyed by the id of the
        # dict a device had, held in the value so that no other dict takes its id while this runs.
        after = {}
        for name in expanded:
            got = assigned.get(name)
            moved = after.get(id(got))
            if moved is None:
                settings = dict(got) if got else {}
                settings.update(given)
                moved = after[id(got)] = (got, settings)
            assigned[name] = moved[1]
    return per_rule, assigned


def read(root, data):
    """The facts a plan's diff reads: each device without what only `numatune
    facts` shows (facts.ONLY_SHOWN: a quarter of a SCSI path's files)."""
    return _read(root, data, whole=False)


def read_whole(root, data):
    """The facts `numatune facts` and recommend show: each device whole."""
    return _read(root, data, whole=True)


def _read(root, data, whole):
    if not data.get("block"):
        return {"source": None, "live": root.is_live, "devices": {}}
    # What any rule sets is read with each device's identity: most devices of a
    # host the policy names are its LUNs, and their queue directories are then
    # opened once, not again per device for the settings (5,000 on a giant host).
    read_along = {}
    source, devices = facts_block.discover(root, attrs=asked(data), read=read_along, whole=whole)
    return with_settings(root, data, source, devices, read_along)


def asked(data):
    """The settings any rule sets, sorted (max_hw_sectors_kb with max_sectors_kb: its limit)."""
    out = {attr for rule in data["block"] for attr in settings_of(rule)}
    if "max_sectors_kb" in out:
        out.add("max_hw_sectors_kb")
    return sorted(out)


def with_settings(root, data, source, devices, read_along):
    """The facts of ``devices``: each selected one's settings (from the texts
    ``read_along`` holds, else read), and numatune's files."""
    _, assigned = select(data, devices)
    lists = {}      # the attributes to read of each dict of settings (devices the same rules set share one)
    for name, attrs in assigned.items():
        wanted = lists.get(id(attrs))
        if wanted is None:
            wanted = lists[id(attrs)] = list(attrs) + (["max_hw_sectors_kb"] if "max_sectors_kb" in attrs else [])
        devices[name]["settings"] = current.read_settings(root, devices[name], wanted, read_along.get(name))
    binary = next((p for p in multipath_conf.MULTIPATHD if root.exists(p)), None)
    return {"source": source, "live": root.is_live, "devices": devices,
            "udev_rules": root.read_text(udev_rules.PATH),
            "multipath_conf": root.read_text(multipath_conf.PATH),
            "multipathd": binary,
            "multipathd_state": multipathd.read(root, binary) if data_multipath(data) else None}


def data_multipath(data):
    return any("multipath" in rule for rule in data.get("block") or [])


def diff(data, facts):
    rules = data.get("block") or []
    if not rules:
        return
    mine = facts[NAME]
    devices = mine["devices"]
    per_rule, assigned = select(data, devices)
    for i, rule, direct, expanded, via in per_rule:
        if not direct:
            yield Finding(id="block.nomatch:%d" % i, severity="info", area="storage", target="block[%d]" % i,
                          rule="block[%d].match" % i,
                          message="block[%d] matches no block device here (%s)" % (i, _describe(rule["match"])))
    # multipath.conf first: its `multipathd reconfigure` reloads the maps'
    # tables, which resets their queues, so the maps' queue writes follow it
    # (the plan keeps a family's order; revert undoes in reverse).
    yield from block_persist.multipath(data, mine, per_rule)
    vias = {}
    for _, _, _, _, via in per_rule:
        vias.update(via)
    compliant = {i: True for i, *_ in per_rule}
    unset = {i: set() for i, *_ in per_rule}  # devices a rule leaves as they are (not offered, no such file)
    for index, name, item in live.items(devices, assigned, rules, vias, sorted(assigned, key=_natural)):
        if isinstance(item, Change):
            compliant[index] = False
        else:
            unset[index].add(name)
        yield item
    # Settings another mechanism keeps at boot (a tuned profile's [disk]): no udev rule for them.
    kept_by = {}
    for i, rule, _, _, _ in per_rule:
        for attr in settings_of(rule):
            found = routes.route(facts, "block", "%d.%s" % (i, attr))
            if found:
                kept_by[(i, attr)] = found["by"]
    covered = block_coverage.Coverage(mine, assigned, kept_by)   # the rules on file's, then the wanted ones'
    missing = None      # what the rules on file miss: asked only about a compliant rule
    for i, rule, direct, expanded, via in per_rule:
        if not (direct and compliant[i] and settings_of(rule)):
            continue
        done = [n for n in expanded if n not in unset[i]]
        if not done:
            continue  # nothing is set by this rule: its findings say why; nothing to call compliant
        if missing is None:
            missing = covered.missing(block_persist.current_rules(mine))
        kept = block_coverage.kept(done, settings_of(rule), missing)
        by = sorted({udev_rules.PATH if (i, a) not in kept_by else kept_by[(i, a)] for a in settings_of(rule)})
        where = ("live and persisted by %s" % " and ".join(by) if len(kept) == len(done)
                 else "live; persisted for %d of them" % len(kept))
        yield Compliant("block[%d]" % i, "block[%d]: %d device(s) already have %s %s"
                        % (i, len(done), ", ".join(settings_of(rule)), where), "storage",
                        kept_by=" and ".join("udev rule file " + b if b == udev_rules.PATH else b for b in by)
                        if len(kept) == len(done) else "")
    assumed = sorted({n for _, _, _, expanded, _ in per_rule for n in expanded
                      if devices[n].get("devtype_assumed")}, key=_natural)
    if assumed:
        yield Finding(id="block.uevent-missing", severity="info", area="storage", target="/sys/block", rule="block",
                      message="no uevent file for %s in this capture: every /sys/block entry is a whole disk "
                              "(partitions are not listed there), so the udev rules' DEVTYPE==disk selects them"
                              % (", ".join(assumed[:6]) + (" and %d more" % (len(assumed) - 6)
                                                           if len(assumed) > 6 else "")))
    yield from block_persist.udev(data, mine, per_rule, covered if assigned else None, kept_by)


def _describe(match):
    return ", ".join("%s=%s" % (k, match[k]) for k in sorted(match))


EDITORS = {"block_udev_rules": block_persist.udev_rules_file, "multipath_section": multipath_conf.multipath_section}
