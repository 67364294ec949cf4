"""tuned as the route that keeps the policy at boot (``[tuned] persist``).

Where a tuned profile is active, tuned applies it when it starts, after
systemd-sysctl has read sysctl.d: its THP, CPU and queue settings win over
numatune's files, and its sysctls do too where it does not write sysctl.d
again after them (reapply_sysctl off, numatune.families.tuned.mainconf). So with
``persist = "profile"`` (the default there) numatune writes a child profile,
``numatune``, that includes the active one and carries the policy's sysctl,
THP, CPU, queue and boot settings, and selects it; revert puts the old
``active_profile`` back. This is how linux-system-roles' kernel_settings
persists too.

The resolved values say which settings the route keeps (``routes``, read by
the other families through ``numatune.facts.routes``): a value the active
profile's chain already holds is kept; a value the child will carry is left
by its own family to the child's change.
"""
from numatune.families.tuned import conflicts as tc

CHILD = "numatune"
HEADER = ("# Managed by numatune: the policy's settings over the profile it includes.\n"
          "# Changes here are overwritten by `numatune apply` and restored by `numatune revert`.\n")
# tuned's disk plugin handles whole disks with a SCSI, virtio, Xen or NVMe
# parent (plugin_disk._device_is_supported): device-mapper maps keep udev.
DISK_KINDS = ("disk", "nvme")
# The queue settings tuned's [disk] sets, with its option names.
DISK_OPTIONS = (("scheduler", "elevator"), ("read_ahead_kb", "readahead"))


def child_path(mine):
    """tuned 2.24 looks in /etc/tuned/profiles first; before, /etc/tuned."""
    base = "/etc/tuned/profiles" if mine.get("profiles_subdir") else "/etc/tuned"
    return "%s/%s/tuned.conf" % (base, CHILD)


def route_of(data, mine):
    """"profile", "files", or None when there is no profile to build on, or
    nothing starts tuned at boot to load it (a profile kept nothing then)."""
    spec = data.get("tuned") or {}
    persist = spec.get("persist")
    if persist == "files":
        return "files"
    parent = mine.get("parent") or []
    if not mine.get("installed") or not parent or (mine.get("profile") or {}).get("missing") or \
            not mine.get("enabled"):
        return None if persist == "profile" else "files"
    return "profile"


def _sysctl(data):
    out = {}
    for key, spec in (data.get("sysctl") or {}).items():
        if isinstance(spec, dict) and "at_least" in spec:
            fields = str(spec["at_least"]).split()
            # tuned's ">N" sets only when higher (its assignment modifiers), one integer only: a
            # multi-field minimum stays with sysctl.d, which tuned re-applies after its profile.
            if len(fields) == 1:
                out[key] = ">" + fields[0]
            continue
        value = spec["value"] if isinstance(spec, dict) else spec
        out[key] = " ".join(str(int(value) if isinstance(value, bool) else value).split())
    return out


def _keeps(theirs, value):
    """Whether a profile's value keeps ours (">N": any integer at or above N)."""
    if value.startswith(">"):
        try:
            # Theirs may be a minimum too (numatune's own child profile, ">N"): it keeps ours when as high.
            return int(theirs[1:] if theirs.startswith(">") else theirs) >= int(value[1:])
        except ValueError:
            return False
    return theirs == value


def disk_units(data, facts):
    """[(unit name, [devices], {option: value}, index)]: the [[block]] rules'
    scheduler and read-ahead for the whole disks they select today."""
    storage = facts.get("storage") or {}
    devices = storage.get("devices") or {}
    if not data.get("block") or not devices:
        return []
    from numatune.families.storage.knob import select
    from numatune.families.storage.settings import SCHEDULER_NAMES
    out = []
    per_rule, _ = select(data, devices)
    for i, rule, direct, expanded, via in per_rule:
        names = [n for n in expanded if devices[n]["kind"] in DISK_KINDS]
        if not names or len(names) != len(expanded):
            continue  # maps or partitions: udev keeps the whole rule
        options = {}
        for attr, option in DISK_OPTIONS:
            if attr not in rule:
                continue
            value = str(rule[attr])
            if isinstance(rule[attr], dict):
                # at_least: tuned's ">N" sets only where the device has less (its assignment modifiers).
                value = ">%d" % rule[attr]["at_least"]
            if attr == "scheduler":
                # The name the disks offer (mq-deadline where blk-mq renamed deadline).
                sched = devices[names[0]]["scheduler"]
                offered = set(sched.get("available") or []) | {sched.get("current")}
                value = next((n for n in SCHEDULER_NAMES.get(value, [value]) if n in offered), value)
            options[option] = value
        if options:
            out.append(("disk_numatune_%d" % i, names, options, i))
    return out


def sections(data, facts):
    """The child profile's units: [(section, [(key, value)])], in tuned's order."""
    out = []
    sysctl = _sysctl(data)
    if sysctl:
        out.append(("sysctl", sorted(sysctl.items())))
    kernel = data.get("kernel") or {}
    if kernel.get("transparent_hugepage"):
        out.append(("vm", [("transparent_hugepages", kernel["transparent_hugepage"])]))
    cpu = data.get("cpu") or {}
    cpu_opts = []
    if cpu.get("governor"):
        cpu_opts.append(("governor", cpu["governor"]))
    if cpu.get("max_cstate"):
        # The latency of state N: tuned holds /dev/cpu_dma_latency there, so no deeper state is entered.
        cpu_opts.append(("force_latency", "cstate.id:%d" % cpu["max_cstate"]))
    if cpu_opts:
        out.append(("cpu", cpu_opts))
    for unit, names, options, _ in disk_units(data, facts):
        # tuned gives each device to the first instance that matches it, in priority order (0 by
        # default, then unit order): the included profile's [disk] (devices=*) would take these first.
        out.append((unit, [("type", "disk"), ("priority", "-1"), ("devices", ",".join(names))]
                    + sorted(options.items())))
    # No [bootloader] section: numatune edits the bootloader itself (BLS, grub.cfg, grub.conf), and tuned's
    # bootloader plugin, applying the profile, rewrites a grub.cfg (RHEL 7 BIOS, Debian) after numatune's edit:
    # on a real boot (tests/lab/realboot) apply's verify found its grub.cfg edit overwritten and rolled back.
    return out


def render(parent, units):
    out = [HEADER, "\n[main]\nsummary=numatune's policy over %s\ninclude=%s\n" % (parent, parent)]
    for section, options in units:
        out.append("\n[%s]\n" % section)
        out.extend("%s=%s\n" % kv for kv in options)
    return "".join(out)


def _kept(mine):
    """{(plugin, key): (value, where)} of what the active chain applies."""
    profile = mine.get("profile")
    if not profile or not profile.get("files"):
        return {}
    return {(plugin, key): (value, where) for plugin, key, value, where in tc.effective(profile)}


def resolve(data, facts):
    mine = facts.get(tc.NAME) or {}
    route = route_of(data, mine)
    out = {"route": route, "routes": {}}
    if not mine or not mine.get("enabled"):
        return out  # nothing loads a profile at boot: none keeps a value
    kept = _kept(mine)
    name = " ".join(mine.get("active") or [])
    sysctl = {}
    for key, value in _sysctl(data).items():
        theirs = kept.get(("sysctl", key))
        if theirs and _keeps(tc.norm(theirs[0]), value):
            sysctl[key] = {"by": "tuned profile %s (%s)" % (name, theirs[1]), "kept": True}
        elif route == "profile":
            sysctl[key] = {"by": "tuned profile %s (%s)" % (CHILD, child_path(mine)), "kept": False}
    kernel = {}
    thp = (data.get("kernel") or {}).get("transparent_hugepage")
    theirs = kept.get(("vm", "transparent_hugepages")) or kept.get(("vm", "transparent_hugepage"))
    if thp and theirs and theirs[0] == thp:
        kernel["transparent_hugepage"] = {"by": "tuned profile %s (%s)" % (name, theirs[1]), "kept": True}
    elif thp and route == "profile":
        kernel["transparent_hugepage"] = {"by": "tuned profile %s (%s)" % (CHILD, child_path(mine)), "kept": False}
    block = {}
    if route == "profile":
        for _, _, options, i in disk_units(data, facts):
            for attr, option in DISK_OPTIONS:
                if option in options:
                    block["%d.%s" % (i, attr)] = {"by": "tuned profile %s (%s)" % (CHILD, child_path(mine)),
                                                  "kept": False}
    cpu = {}
    wanted = data.get("cpu") or {}
    for key, option in (("governor", "governor"), ("max_cstate", "force_latency")):
        if wanted.get(key) and route == "profile":
            # The child's [cpu] (sections() above): tuned sets it again when it starts, so the boot unit need not.
            cpu[key] = {"by": "tuned profile %s (%s)" % (CHILD, child_path(mine)), "kept": False}
    out["routes"] = {"sysctl": sysctl, "kernel": kernel, "block": block, "cpu": cpu}
    if route == "profile":
        out["parent"] = " ".join(mine["parent"])
        out["units"] = sections(data, facts)
        out["content"] = render(out["parent"], out["units"])
    return out
