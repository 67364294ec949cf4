"""tuned profiles: read the active one (with its include= chain and
[variables]) and name every knob it sets differently from the policy.

tuned applies its profile when the daemon starts, after systemd-sysctl has
loaded sysctl.d at boot; for sysctls it then writes the sysctl.d values
again where its reapply_sysctl says so (numatune.families.tuned.mainconf),
so who wins depends on the knob and on tuned-main.conf: the tuned family's
diff says which. Parsing is pure: ``load_profile`` takes a function that
returns a file's text (or None) so it runs on any root.
"""
import re

# Searched in this order; the first directory holding the profile wins, as in
# tuned (the administrator's /etc/tuned over the packaged /usr/lib/tuned;
# tuned 2.24 moved both to a profiles/ subdirectory).
PROFILE_DIRS = ("/etc/tuned/profiles", "/etc/tuned", "/usr/lib/tuned/profiles", "/usr/lib/tuned")
NAME = "tuned"
ACTIVE = "/etc/tuned/active_profile"
MODE = "/etc/tuned/profile_mode"
VAR_RE = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


def parse_conf(text):
    """{section: {key: (value, line)}} in file order; comments dropped."""
    out, section = {}, None
    for number, raw in enumerate((text or "").splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        m = re.match(r"^\[([^\]]+)\]$", line)
        if m:
            section = out.setdefault(m.group(1).strip(), {})
            continue
        if section is None or "=" not in line:
            continue
        key, _, value = line.partition("=")
        section[key.strip()] = (value.strip(), number)
    return out


def split_names(text):
    return [n for n in re.split(r"[\s,]+", text or "") if n]


def find_profile(read, name):
    for base in PROFILE_DIRS:
        path = "%s/%s/tuned.conf" % (base, name)
        text = read(path)
        if text is not None:
            return path, text
    return None, None


def _merge(into, conf, path):
    """tuned's merge: a unit with replace=1 replaces the included one."""
    for section, options in conf.items():
        opts = {k: (v, "%s:%d" % (path, n)) for k, (v, n) in options.items()}
        if section == "main" or opts.get("replace", ("",))[0] not in ("1", "true", "True"):
            into.setdefault(section, {}).update(opts)
        else:
            into[section] = opts


def load_profile(read, names, depth=0, seen=None):
    """{"names", "files", "missing", "units": {section: {key: (value, where)}}}."""
    seen = set() if seen is None else seen
    result = {"names": list(names), "files": [], "missing": [], "units": {}}
    for name in names:
        if name in seen or depth > 10:
            continue  # an include cycle: tuned stops too
        seen.add(name)
        path, text = find_profile(read, name)
        if path is None:
            result["missing"].append(name)
            continue
        conf = parse_conf(text)
        include = conf.get("main", {}).get("include")
        if include:
            variables = {k: v for k, (v, _) in conf.get("variables", {}).items()}
            parent = load_profile(read, split_names(_expand(include[0], variables)), depth + 1, seen)
            result["files"] += parent["files"]
            result["missing"] += parent["missing"]
            for section, opts in parent["units"].items():
                result["units"].setdefault(section, {}).update(opts)
        result["files"].append(path)
        _merge(result["units"], conf, path)
    result["variables"] = _variables(read, result["units"].get("variables", {}))
    return result


def _variables(read, section):
    """[variables] in file order, each expanded with those before it (as
    tuned does: cpu-partitioning's ``isolated_cores = ${isolated_cores}``
    keeps the value its include= file set)."""
    out = {}
    for key, (value, _) in section.items():
        if key == "include":
            more = parse_conf("[v]\n" + (read(value) or "")).get("v", {})
            out.update({k: _expand(v, out) for k, (v, _) in more.items()})
        else:
            out[key] = _expand(value, out)
    return out


def _expand(value, variables):
    for _ in range(5):
        new = VAR_RE.sub(lambda m: variables.get(m.group(1), m.group(0)), value)
        if new == value:
            break
        value = new
    return value


def effective(profile):
    """[(plugin, key, value, where)] of the units tuned applies everywhere.

    Units limited to some hardware (uname_regex, cpuinfo_regex) or disabled
    are left out: whether they apply depends on the machine tuned runs on."""
    out = []
    variables = profile.get("variables", {})
    for section, opts in profile["units"].items():
        if section in ("main", "variables"):
            continue
        plugin = opts.get("type", (section.split(".")[0],))[0]
        if opts.get("enabled", ("1",))[0].lower() in ("0", "false", "no"):
            continue
        if "uname_regex" in opts or "cpuinfo_regex" in opts:
            continue
        for key, (value, where) in opts.items():
            if key in ("type", "replace", "enabled", "devices", "uname_regex", "cpuinfo_regex"):
                continue
            out.append((plugin, key, _expand(value, variables), where))
    return out


def _norm(value):
    return " ".join(str(value).split())


norm = _norm


def _sysctl_conflict(tuned_value, wanted):
    """tuned's ">N" and "<N" only raise or lower a value."""
    m = re.match(r"^([<>])\s*(-?\d+)$", tuned_value)
    if m and re.match(r"^-?\d+$", wanted):
        return int(wanted) < int(m.group(2)) if m.group(1) == ">" else int(wanted) > int(m.group(2))
    return _norm(tuned_value) != _norm(wanted)


def _below_floor(tuned_value, floor):
    """tuned's value against an at_least rule: ">N" only raises, so it never
    undoes the floor; "<N" or a plain value does when it is below it."""
    from numatune.families.sysctl import minimum
    m = re.match(r"^([<>])\s*(-?\d+)$", tuned_value)
    if m:
        return m.group(1) == "<" and not minimum.meets(m.group(2), floor)
    return not minimum.meets(tuned_value, floor)


def _latency_state(value, cpuidle):
    """The deepest cpuidle state index force_latency allows, or None."""
    first = value.split("|")[0].strip()
    m = re.match(r"^cstate\.id(?:_no_zero)?:(\d+)$", first)
    if m:
        return int(m.group(1))
    states = next(iter((cpuidle or {}).get("cpus", {}).values()), [])
    m = re.match(r"^cstate\.name:(\S+)$", first)
    if m:
        return next((s["index"] for s in states if s["name"] == m.group(1)), None)
    if first.isdigit() and states:
        allowed = [s["index"] for s in states if s["latency"] is not None and s["latency"] <= int(first)]
        return max(allowed) if allowed else 0
    return None


def conflicts(data, profile, cpuidle=None):
    """[(knob, tuned value, policy value, where, area)] where tuned differs."""
    out = []
    sysctl, floors = {}, {}
    for key, spec in (data.get("sysctl") or {}).items():
        # Here, not at the top: a journal record naming a tuned editor imports no other family.
        from numatune.families.sysctl import minimum
        kind, value, _ = minimum.spec_of(spec)
        sysctl[key] = value if kind == "value" else "at least " + value
        if kind == "at_least":
            floors[key] = value
    kernel = data.get("kernel") or {}
    cpu = data.get("cpu") or {}
    cmdline = kernel.get("cmdline") or {}
    boot_args = []
    for plugin, key, value, where in effective(profile):
        if plugin == "sysctl" and key in sysctl and (
                _below_floor(value, floors[key]) if key in floors else _sysctl_conflict(value, sysctl[key])):
            area = "memory" if key.startswith("vm.") else "network" if key.startswith("net.") else "kernel"
            out.append(("sysctl " + key, value, sysctl[key], where, area))
        elif plugin == "vm" and key in ("transparent_hugepages", "transparent_hugepage") and \
                kernel.get("transparent_hugepage") and value != kernel["transparent_hugepage"]:
            out.append(("transparent_hugepage", value, kernel["transparent_hugepage"], where, "memory"))
        elif plugin == "cpu" and key == "governor" and cpu.get("governor") and \
                value.split("|")[0].strip() != cpu["governor"]:
            out.append(("cpu governor", value, cpu["governor"], where, "cpu"))
        elif plugin == "cpu" and key == "force_latency" and cpu.get("max_cstate"):
            state = _latency_state(value, cpuidle)
            if state is None or state != cpu["max_cstate"]:
                out.append(("C-states (force_latency)", value, "max_cstate = %d" % cpu["max_cstate"], where, "cpu"))
        elif plugin == "bootloader" and key.startswith("cmdline"):
            # A leading "+" appends to the cmdline of included profiles.
            boot_args += [(a, where) for a in value.lstrip("+").split()]
    out += _boot_conflicts(boot_args, cmdline, kernel, cpu)
    return out


def _boot_conflicts(boot_args, cmdline, kernel, cpu):
    out = []
    wanted = {a.split("=", 1)[0]: a for a in cmdline.get("present", [])}
    if kernel.get("transparent_hugepage"):
        wanted.setdefault("transparent_hugepage", "transparent_hugepage=" + kernel["transparent_hugepage"])
    if cpu.get("max_cstate"):
        for name in ("intel_idle.max_cstate", "processor.max_cstate"):
            wanted.setdefault(name, "%s=%d" % (name, cpu["max_cstate"]))
    absent = cmdline.get("absent", [])
    for arg, where in boot_args:
        name = arg.split("=", 1)[0]
        if arg in absent or name in absent:
            out.append(("boot argument " + name, arg, "absent", where, "kernel"))
        elif name in wanted and wanted[name] != arg:
            out.append(("boot argument " + name, arg, wanted[name], where, "kernel"))
    return out
