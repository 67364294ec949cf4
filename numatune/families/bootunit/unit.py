"""numatune-boot: the oneshot unit (or SysV script) that runs `numatune
boot` early at boot, and the changes that keep a value in the boot file.

Enabling is a file too: a drop-in for multi-user.target that wants the
unit (``multi-user.target.d/numatune-boot.conf``), so apply journals and
reverts it byte for byte like any other file, with no symlink to manage.
The RPM ships the same unit in /usr/lib/systemd/system and a SysV script
for RHEL/OL 6 (chkconfig) in /etc/rc.d/init.d; apply writes the unit into
/etc/systemd/system only where neither is installed (a pip install).
"""
import os
import sys

from numatune.facts import bootfile
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
Before=sysinit.target shutdown.target {oracle}
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


def this_numatune():
    """The command that runs this numatune: the script beside the running
    Python (/usr/bin/numatune from the RPM, .venv/bin/numatune), else
    ``python -m numatune``."""
    script = os.path.join(os.path.dirname(sys.executable), "numatune")
    return script if os.path.isfile(script) else "%s -m numatune" % sys.executable


def read(root, data):
    text = root.read_text(bootfile.PATH)
    unit = next((d + "/" + UNIT for d in UNIT_DIRS if root.exists(d + "/" + UNIT)), None)
    systemd = unit is not None or any(root.exists(p) for p in ("/usr/lib/systemd/systemd", "/lib/systemd/systemd",
                                                                 "/etc/systemd/system"))
    # RHEL/OL 6 (kernel 2.6.32) boots with SysV init; a capture may hold no /etc/rc.d at all.
    release = root.read_value("/proc/sys/kernel/osrelease") or ""
    sysv = not systemd and (root.isdir("/etc/rc.d/init.d") or release.startswith("2."))
    # A unit an older apply wrote ran only for boot.conf: its text says whether it runs for the replay file too.
    own = root.read_text(OWN_UNIT) if unit == OWN_UNIT else None
    return {"values": dict(bootfile.parse(text)), "unit": unit, "wants": root.read_text(WANTS),
            "init": "sysv" if sysv else "systemd", "sysv_script": root.exists(SYSV),
            "old_unit": own is not None and bootfile.REPLAY_PATH not in own,
            "replay": bootfile.parse_replay(root.read_text(bootfile.REPLAY_PATH))}


def diff(data, facts):
    return ()


def mechanism(mine, path=bootfile.PATH):
    """How the boot file (or ``path``) is run at boot, for the report: what `check` names."""
    if mine["init"] == "sysv":
        return "the SysV script numatune-boot (%s)" % path
    return "%s (%s)" % (UNIT, path)


def install(mine, replay=False):
    """The writes that install and enable the unit (none on SysV, where the
    RPM's script is the runner). ``replay``: it must also run for the replay
    file, which a unit an older apply wrote does not."""
    if mine["init"] == "sysv":
        return []
    out = []
    if mine["unit"] is None or (replay and mine.get("old_unit")):
        out.append(Write(kind="file", path=OWN_UNIT, editor="boot_unit", args={}))
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
    writes = [] if have == value else [Write(kind="file", path=bootfile.PATH, editor="boot_value",
                                             args={"path": path, "value": value})]
    writes += install(mine)
    if not writes:
        yield Compliant(change_id, "%s = %s at boot" % (target, value), area, kept_by=mechanism(mine))
    else:
        yield Change(id=change_id, area=area, target="%s at boot" % target, current=have, desired=value,
                     scope="persistent", rule=rule, why=why,
                     action="keep in %s, run at boot by %s" % (bootfile.PATH, UNIT),
                     writes=writes, drift_severity=drift_severity)
    if first:
        yield from no_runner(mine, area, rule)


def no_runner(mine, area, rule, path=bootfile.PATH):
    """A finding when nothing would run `numatune boot` on this SysV host."""
    if mine["init"] == "sysv" and not mine["sysv_script"]:
        yield Finding(id="bootunit.no-sysv-script", severity="warning", area=area, target=SYSV, rule=rule,
                      message="%s is missing: nothing runs %s at boot on this SysV host" % (SYSV, path),
                      why="install the numatune RPM (its %post runs `chkconfig --add numatune-boot`)")


def boot_value(text, path, value):
    return bootfile.set_line(text, path, value)


def boot_replay(text, family, keys, policy):
    return bootfile.set_replay(text, family, keys, policy)


def boot_unit(text):
    return unit_text(this_numatune())


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
    if keys:
        again = "  re-planned at each boot from %s: %s" % (bootfile.REPLAY_PATH, ", ".join(keys))
        out.append(again if len(again) <= 80 else
                   "  re-planned at each boot from %s: %d setting(s)" % (bootfile.REPLAY_PATH, len(keys)))
    return out
