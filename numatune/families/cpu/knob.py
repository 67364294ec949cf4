"""CPU power: the cpufreq governor and the deepest C-state.

Live: scaling_governor of every cpufreq policy, and stateN/disable of the
cpuidle states deeper than max_cstate. Boot: intel_idle.max_cstate= or
processor.max_cstate= by idle driver, and cpufreq.default_governor= (5.9+),
planned through the bootloader helpers of the cmdline family.
"""
import re

from numatune.errors import BootConfigError
from numatune.facts import routes
from numatune.families import bootunit
from numatune.families.bootunit import unit
from numatune.families.cpu import facts as cpupower
from numatune.model import Change, Compliant, Finding, Write
from numatune.policy.schema import WHY, Scalar, Table

NAME = "cpu"
POLICY = {
    "cpu": Table({
        "governor": Scalar(str, pattern=r"^[a-z][a-z0-9_-]*$", doc="a cpufreq governor such as performance"),
        # 0 would switch intel_idle off altogether (acpi_idle takes over), which is not a shallower limit.
        "max_cstate": Scalar(int, minimum=1, maximum=20),
        "why": WHY,
    }),
}
# The kernel argument that caps C-states for each idle driver.
BOOT_PARAM = {"intel_idle": "intel_idle.max_cstate", "acpi_idle": "processor.max_cstate"}
# The live changes' boot keys by the rule a Compliant carries.
LIVE = {"cpu.governor": "cpu.governor", "cpu.max_cstate": "cpu.cstates"}
# These drivers run their own governor-less algorithm: cpufreq.default_governor does not apply.
SETPOLICY_DRIVERS = ("intel_pstate", "amd-pstate-epp")


def read(root, data):
    if not data.get("cpu"):
        return {}
    from numatune.facts.topology import read_cpus
    _, online = read_cpus(root)
    return cpupower.read(root, online)


def _finding(key, severity, message, rule, target=""):
    return Finding(id="cpu.%s" % key, severity=severity, area="cpu", target=target, rule=rule, message=message,
                   pending=key.startswith("reboot-pending:"))


def diff(data, facts):
    cpu = data.get("cpu") or {}
    if not cpu:
        return
    mine = facts[NAME]
    why = cpu.get("why", "")
    items, keys, keepers = [], [], {}
    if "governor" in cpu:
        items += _governor(cpu["governor"], why, mine, facts, data, keys, keepers)
    if "max_cstate" in cpu:
        items += _cstates(cpu["max_cstate"], why, mine, facts, data, keys, keepers)
    # What nothing else keeps at boot is planned again there by the boot unit, on that boot's CPUs.
    kept = bootunit.kept_by(facts, NAME, keys, data)
    for item in items:
        if isinstance(item, Change) and item.id in keys:
            item.boot_key = item.id
        elif isinstance(item, Compliant) and item.rule in LIVE:
            # The live value's keeper, for apply's table and check: the boot unit only once it holds the key.
            item.kept_by = kept if LIVE[item.rule] in keys else keepers.get(item.rule, "")
    yield from items
    yield from bootunit.keep(facts, NAME, keys, data, "cpu.boot-replay", "cpu",
                             rule=",".join(r for r, k in sorted(LIVE.items()) if k in keys), why=why)
    for holder in mine["dma_latency"]:
        yield _finding("pm-qos:%d" % holder["pid"], "info" if "max_cstate" not in cpu else "warning",
                       "%s (pid %d) holds %s open: its PM QoS latency request limits C-states too, whatever "
                       "max_cstate says, until it closes the file" % (holder["comm"], holder["pid"],
                                                                   cpupower.DMA_LATENCY),
                       "cpu.max_cstate", cpupower.DMA_LATENCY)


def _routed(items):
    """Whether a boot argument keeps the value: planned, in place or waiting
    for the reboot (or left to the policy's own [kernel.cmdline]: no items)."""
    return not any(isinstance(i, Finding) and i.id.startswith(("cpu.boot-unknown:", "cpu.boot-cannot-edit:"))
                   for i in items)


def _keeper(facts, key, keys, boot_key, keepers=None):
    """Who sets ``key`` again at boot when no boot argument does: a tuned
    profile (numatune's child carries [cpu]), recorded in ``keepers`` by
    rule, else the boot unit, which ``boot_key`` in ``keys`` asks for
    (nothing, said so, where the boot unit could not run)."""
    found = routes.route(facts, "cpu", key)
    if found:
        if keepers is not None:
            keepers["cpu." + key] = found["by"]
        return found["by"]
    keys.append(boot_key)
    if unit.problem(facts.get(unit.NAME) or {}):
        return "nothing (bootunit.no-runner says why)"
    return "`numatune boot` (numatune-boot.service)"


def _governor(desired, why, mine, facts, data, keys, keepers):
    return list(_governor_items(desired, why, mine, facts, data, keys, keepers))


def _governor_items(desired, why, mine, facts, data, keys, keepers):
    freq = mine["cpufreq"]
    rule = "cpu.governor"
    if not freq["policies"]:
        yield _finding("no-cpufreq", "info", "no cpufreq on this host (a VM, or firmware controls the clock): "
                                             "governor %s not set" % desired, rule)
        return
    refused = [p for p in freq["policies"] if p["available"] and desired not in p["available"]]
    if refused:
        yield _finding("governor-refused", "warning", "the %s cpufreq driver offers %s, not %r: governor not set"
                       % (freq["driver"] or "?", " ".join(refused[0]["available"]), desired), rule)
        return
    wrong = [p for p in freq["policies"] if p["governor"] != desired]
    if wrong:
        cpus = sum(len(p["cpus"]) for p in wrong)
        current = sorted({p["governor"] or "?" for p in wrong})
        yield Change(id="cpu.governor", area="cpu", target="scaling_governor (%d CPU(s), %d policy(ies))"
                     % (cpus, len(wrong)), current=",".join(current), desired=desired, scope="live",
                     action="write scaling_governor", why=why, rule=rule,
                     writes=[Write(kind="value", path=p["path"] + "/scaling_governor", value=desired)
                             for p in wrong])
    else:
        yield Compliant(rule, "governor %s on every CPU" % desired, "cpu")
    if freq["driver"] in SETPOLICY_DRIVERS:
        by = _keeper(facts, "governor", keys, "cpu.governor", keepers)
        yield _finding("governor-boot", "info", "%s picks its policy at boot itself: the governor is set live, "
                                                "and %s sets it again at each boot" % (freq["driver"], by), rule)
        return
    if not _kernel_at_least(facts["host"]["release"], (5, 9)):
        _keeper(facts, "governor", keys, "cpu.governor", keepers)  # no cpufreq.default_governor= before 5.9
        return
    boot = list(_boot_arg("cpufreq.default_governor=" + desired, why, rule, facts, data, keepers))
    if not _routed(boot):
        _keeper(facts, "governor", keys, "cpu.governor", keepers)
    yield from boot


def _cstates(limit, why, mine, facts, data, keys, keepers):
    return list(_cstates_items(limit, why, mine, facts, data, keys, keepers))


def _cstates_items(limit, why, mine, facts, data, keys, keepers):
    idle = mine["cpuidle"]
    rule = "cpu.max_cstate"
    if idle["driver"] is None:
        yield _finding("no-cpuidle", "info", "no cpuidle driver on this host (a VM, or the hypervisor idles the "
                                             "CPU): C-states are not limited live", rule)
    else:
        writes, names, cpus = [], set(), set()
        for cpu, states in sorted(idle["cpus"].items(), key=lambda kv: int(kv[0])):
            for state in states:
                # stateN beyond the limit; POLL (state0) is never a C-state.
                if state["index"] > limit and state["name"] != "POLL" and not state["disabled"]:
                    writes.append(Write(kind="value", path=state["path"], value="1"))
                    names.add(state["name"])
                    cpus.add(cpu)
        if writes:
            yield Change(id="cpu.cstates", area="cpu", target="cpuidle states deeper than state%d on %d CPU(s)"
                         % (limit, len(cpus)), current="enabled: " + ",".join(sorted(names)),
                         desired="disabled", scope="live", action="write stateN/disable", why=why, rule=rule,
                         writes=writes)
        else:
            yield Compliant(rule, "no cpuidle state deeper than state%d is enabled" % limit, "cpu")
    if idle["driver"] is None:
        return
    param = BOOT_PARAM.get(idle["driver"])
    if param is None:
        by = _keeper(facts, "max_cstate", keys, "cpu.cstates", keepers)
        yield _finding("no-boot-cstate", "info", "the %s idle driver has no max_cstate boot argument: the "
                                                 "limit is set live, and %s sets it again at each boot"
                       % (idle["driver"], by), rule)
        return
    boot = list(_boot_arg("%s=%d" % (param, limit), why, rule, facts, data, keepers))
    if not _routed(boot):
        _keeper(facts, "max_cstate", keys, "cpu.cstates", keepers)
    yield from boot


def _kernel_at_least(release, version):
    m = re.match(r"^(\d+)\.(\d+)", release or "")
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= version


def _boot_arg(arg, why, rule, facts, data, keepers):
    """Plan ``arg`` in the bootloader with the cmdline family's editors; once
    the bootloader has it (or will, by this plan), ``keepers`` names it for ``rule``."""
    from numatune.families.boot import cmdline
    name = arg.split("=", 1)[0]
    listed = data.get("kernel", {}).get("cmdline", {})
    if any(a.split("=", 1)[0] == name for a in listed.get("present", []) + listed.get("absent", [])):
        return  # the policy's own [kernel.cmdline] already decides it
    info = facts.get(cmdline.NAME) or {}
    if not info.get("config") or info.get("error"):
        yield _finding("boot-unknown:" + name, "warning", "no bootloader configuration numatune can edit: %s is "
                                                         "not persisted" % arg, rule, "bootloader")
        return
    cfg = cmdline.config(facts)
    if cfg.kind == "none" and not cfg.default_grub_path and not cfg.kernel_cmdline_path:
        yield _finding("boot-unknown:" + name, "warning", "no bootloader configuration numatune knows: %s is not "
                                                         "persisted" % arg, rule, "bootloader")
        return
    live = facts["host"]["cmdline"]
    where = cmdline.kept_by(cfg)
    old = sorted({a for e in cfg.entries for a in e.args if a.split("=", 1)[0] == name})
    others = [a for a in old if a != arg]
    try:
        writes = cmdline.writes_for(facts, cfg, [arg], others)
    except BootConfigError as e:
        yield _finding("boot-cannot-edit:" + name, "critical", "cannot add %s: %s" % (arg, e.message), rule,
                       "bootloader")
        return
    keepers[rule] = where
    if writes:
        yield Change(id="cpu.boot:" + name, area="cpu", target="boot cmdline: " + arg,
                     current=" ".join(old) or None, desired=arg, scope="boot",
                     action="set %s in the bootloader (%s)" % (arg, cfg.kind), reboot_required=True,
                     risk="medium", why=why, rule=rule, writes=writes)
    elif live is not None and arg not in live:
        yield _finding("reboot-pending:" + name, "warning", "the bootloader has %s but the running kernel booted "
                                                           "without it: reboot to apply" % arg, rule, "/proc/cmdline")
    else:
        yield Compliant("cpu.boot:" + name, "%s at boot" % arg, "cpu", kept_by=where)


EDITORS = {}
