"""numatune-boot: the oneshot unit (or SysV script) that runs `numatune
boot` early at boot, and the changes that keep a value in the boot file.

Enabling is a file too: a drop-in for multi-user.target that wants the
unit (``multi-user.target.d/numatune-boot.conf``), so apply journals and
reverts it byte for byte like any other file, with no symlink to manage.
The RPM ships the same unit in /usr/lib/systemd/system and a SysV script
for RHEL/OL 6 (chkconfig) in /etc/rc.d/init.d; apply writes the unit into
/etc/systemd/system only where neither is installed (a pip install),
naming the root's own system command (numatune.families.bootunit.runner),
and nothing at all where the root has none: a route that could not run is
never enabled, and what needs it is reported as not kept at boot.
"""
from numatune.facts import bootfile
from numatune.facts.kernel import read_distro
from numatune.families.bootunit import runner
from numatune.model import Change, Compliant, Finding, Write

NAME = "bootunit"
UNIT = "numatune-boot.service"
UNIT_DIRS = ("/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system")
OWN_UNIT = "/etc/systemd/system/" + UNIT
WANTS = "/etc/systemd/system/multi-user.target.d/numatune-boot.conf"
SYSV = "/etc/rc.d/init.d/numatune-boot"
# The database and its cluster stack start after the values are back: the
# usual names of Oracle's own units (dbora from the Oracle docs' example,
# ohasd/oracle-ohasd from Grid Infrastructure); Before= a unit that does not
# exist is no error.
ORACLE_UNITS = "dbora.service oracle-ohasd.service ohasd.service oracle-tfa.service"
UNIT_TEXT = """\
[Unit]
Description=Restore the settings numatune applied that no other file keeps
Documentation=man:numatune(8)
DefaultDependencies=no
After=local-fs.target systemd-sysctl.service systemd-modules-load.service
After=systemd-udev-trigger.service systemd-udev-settle.service
# tuned's profile sets some of the same values (the CPU governor): when tuned
# runs, numatune's values are written after it. Ordering before sysinit.target
# would make a cycle with tuned.service, a normal service.
After=tuned.service
Before=shutdown.target {oracle}
Conflicts=shutdown.target
ConditionPathExists=|{conf}
ConditionPathExists=|{replay}

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart={exec} boot

[Install]
WantedBy=multi-user.target
"""
WANTS_TEXT = """\
# Written by `numatune apply`: starts numatune-boot.service at boot, as
# `systemctl enable numatune-boot` would (revert removes this file).
[Unit]
Wants=numatune-boot.service
"""


def unit_text(exec_path):
    return UNIT_TEXT.format(oracle=ORACLE_UNITS, conf=bootfile.PATH, replay=bootfile.REPLAY_PATH, exec=exec_path)


def read(root, data):
    text = root.read_text(bootfile.PATH)
    unit = next((d + "/" + UNIT for d in UNIT_DIRS if root.exists(d + "/" + UNIT)), None)
    systemd = unit is not None or any(root.exists(p) for p in ("/usr/lib/systemd/systemd", "/lib/systemd/systemd",
                                                                 "/etc/systemd/system"))
    # RHEL/OL 6 (kernel 2.6.32) boots with SysV init; a capture may hold no /etc/rc.d at all.
    release = root.read_value("/proc/sys/kernel/osrelease") or ""
    sysv = not systemd and (root.isdir("/etc/rc.d/init.d") or release.startswith("2."))
    init = "sysv" if sysv else "systemd"
    return {"values": dict(bootfile.parse(text)), "unit": unit, "wants": root.read_text(WANTS),
            "init": init, "sysv_script": root.exists(SYSV),
            "runner": _runner(root, init, unit, release, read_distro(root)),
            "replay": bootfile.parse_replay(root.read_text(bootfile.REPLAY_PATH))}


def _runner(root, init, unit, release, distro):
    """What would run `numatune boot` at the next boot: ``command``, the
    ``problem`` that stops it (None: it runs) with its ``hint``, and
    ``write_unit``: the command apply's own unit must name, when that unit is
    missing or says anything else (an older apply's text, another command)."""
    out = {"command": None, "problem": None, "hint": runner.INSTALL_HINT, "write_unit": None}
    if init == "sysv":
        script, level = root.read_text(SYSV), runner.default_runlevel(root)
        if script is None:
            out.update(problem="%s is missing: nothing runs `numatune boot` at boot on this SysV host" % SYSV,
                       hint="install the numatune RPM (its %post runs `chkconfig --add numatune-boot`)")
        elif not runner.sysv_linked(root, "numatune-boot", level):
            out.update(problem="%s does not run at boot: no /etc/rc.d/rc%d.d/S??numatune-boot link (default "
                               "runlevel %d)" % (SYSV, level, level), hint="run `chkconfig --add numatune-boot`")
        else:
            out["command"] = runner.script_command(script)
            out["problem"] = runner.command_problem(root, out["command"], release, distro) if out["command"] \
                else "cannot tell which numatune command %s runs" % SYSV
        return out
    if unit is not None and unit != OWN_UNIT:
        # A package's unit: apply leaves it alone; its command must be there.
        out["command"] = runner.exec_command(root.read_text(unit))
        out["problem"] = runner.command_problem(root, out["command"], release, distro)
        return out
    out["command"], out["problem"] = runner.system_command(root, release, distro)
    if out["command"] and (unit is None or root.read_text(OWN_UNIT) != unit_text(out["command"])):
        out["write_unit"] = out["command"]
    return out


def diff(data, facts):
    return ()


def runner_name(mine):
    return "the SysV script numatune-boot" if mine["init"] == "sysv" else UNIT


def mechanism(mine, path=bootfile.PATH):
    """How the boot file (or ``path``) is run at boot, for the report: what `check` names."""
    return "%s (%s)" % (runner_name(mine), path)


def problem(mine):
    """Why nothing would run `numatune boot` at the next boot, or None."""
    return (mine.get("runner") or {}).get("problem")


def install(mine):
    """The writes that install and enable the unit (none on SysV, where the
    RPM's script is the runner); only where nothing stops it running."""
    if mine["init"] == "sysv" or problem(mine):
        return []
    out = []
    if mine["runner"]["write_unit"]:
        out.append(Write(kind="file", path=OWN_UNIT, editor="boot_unit", args={"command": mine["runner"]["write_unit"]}))
    if mine["wants"] != WANTS_TEXT:
        out.append(Write(kind="file", path=WANTS, editor="boot_wants", args={}))
    return out


def persist(facts, change_id, target, path, value, why="", area="memory", rule="", first=True, drift_severity=""):
    """Keep ``path = value`` at boot through the boot file: Compliant when it
    is there and the unit is enabled, else a persistent Change that writes
    the line and installs and enables the unit. ``first``: the first of a
    caller's values (a missing SysV script is said once)."""
    mine = facts[NAME]
    have = mine["values"].get(path)
    if problem(mine):
        yield not_kept(mine, change_id, "%s at boot" % target, "%s = %s" % (target, value), area, rule)
        if first:
            yield from no_runner(mine, area)
        return
    writes = [] if have == value else [Write(kind="file", path=bootfile.PATH, editor="boot_value",
                                             args={"path": path, "value": value})]
    writes += install(mine)
    if not writes:
        yield Compliant(change_id, "%s = %s at boot" % (target, value), area, kept_by=mechanism(mine))
    else:
        yield Change(id=change_id, area=area, target="%s at boot" % target, current=have, desired=value,
                     scope="persistent", rule=rule, why=why,
                     action="keep in %s, run at boot by %s" % (bootfile.PATH, runner_name(mine)),
                     writes=writes, drift_severity=drift_severity)


def not_kept(mine, change_id, target, what, area, rule):
    """The finding that stands for a persistent change no boot would run:
    the value is live only (a warning: the next boot loses it)."""
    return Finding(id=change_id, severity="warning", area=area, target=target, rule=rule, live_only=True,
                   message="%s is set live only, not kept at boot: nothing would run `numatune boot` at the next "
                           "boot (bootunit.no-runner says why)" % what)


def no_runner(mine, area):
    """Why nothing would run `numatune boot` at the next boot, and how to fix
    it: one finding, however many values needed it (the plan keeps one)."""
    if problem(mine):
        target = mine["runner"]["command"] or (SYSV if mine["init"] == "sysv" else UNIT)
        yield Finding(id="bootunit.no-runner", severity="warning", area=area, target=target,
                      message="%s: the values numatune keeps for the next boot are live only" % problem(mine),
                      why=mine["runner"]["hint"])


def boot_value(text, path, value):
    return bootfile.set_line(text, path, value)


def boot_replay(text, family, keys, policy):
    return bootfile.set_replay(text, family, keys, policy)


def boot_unit(text, command=runner.SYSTEM_DIRS[0] + "/" + runner.COMMAND):
    return unit_text(command)


def boot_wants(text):
    return WANTS_TEXT


EDITORS = {"boot_value": boot_value, "boot_replay": boot_replay, "boot_unit": boot_unit, "boot_wants": boot_wants}


def facts_lines(facts):
    """One statement of the boot path: what runs at boot (or nothing), then
    what it does: the values of the boot file, the live settings re-planned
    from the replay file (either alone is a boot path)."""
    mine = facts.get(NAME)
    if not mine:
        return []
    replay = mine.get("replay") or {}
    keys = sorted(k for entry in replay.values() for k in entry["keys"])
    if not mine["values"] and not keys:
        return ["boot path: none (%s init)" % mine["init"],
                "  nothing in %s or %s" % (bootfile.PATH, bootfile.REPLAY_PATH)]
    if mine["init"] == "sysv":
        runner = "the SysV script numatune-boot" + ("" if mine["sysv_script"] else
                                                     " (%s missing: nothing runs at boot)" % SYSV)
    else:
        runner = UNIT + ("" if mine["unit"] else " (not installed: nothing runs at boot)")
    out = ["boot path: %s" % runner]
    if mine["values"]:
        out.append("  %d value(s) written again at boot from %s" % (len(mine["values"]), bootfile.PATH))
    # The heading names the family; what it keeps goes on indented lines within 80 columns.
    if problem(mine):
        out.append("  nothing would run it at the next boot (`numatune plan` says why: bootunit.no-runner)")
    if keys:
        again = "  re-planned at each boot from %s: %s" % (bootfile.REPLAY_PATH, ", ".join(keys))
        out.append(again if len(again) <= 80 else
                   "  re-planned at each boot from %s: %d setting(s)" % (bootfile.REPLAY_PATH, len(keys)))
    return out
