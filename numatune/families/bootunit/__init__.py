"""The boot path for values no other file keeps (numatune.facts.bootfile): the
families that set such values live keep them at boot through ``persist``,
and live changes that must be planned again on each boot's facts (IRQ
affinity) through ``replay.keep``; this family reads what is in place (the
boot file, the replay file, the unit, its enabling)
and owns the editors that write them. It has no policy table of its own."""
from numatune.family import Family, Snapshot
from numatune.families.bootunit import unit
from numatune.families.bootunit.replay import keep, kept_by  # noqa: F401 (what other families call)
from numatune.families.bootunit.unit import persist  # noqa: F401 (what other families call)

FAMILY = Family(name="bootunit", areas=("memory",), policy={}, read=unit.read, diff=unit.diff,
                editors=unit.EDITORS, facts_lines=unit.facts_lines,
                snapshot=Snapshot(patterns=(
                    ("/etc/numatune", r"^boot\.conf$", False),
                    ("/etc/numatune", r"^boot-replay\.json$", False),
                    ("/etc/systemd/system", r"^numatune-boot\.service$", False),
                    ("/etc/systemd/system/multi-user.target.d", r"^numatune-boot\.conf$", False),
                    ("/usr/lib/systemd/system", r"^numatune-boot\.service$", False),
                    ("/etc/rc.d/init.d", r"^numatune-boot$", False),
                    # What says whether anything runs it at boot (bootunit.runner): the command, its links.
                    ("/etc/systemd/system/multi-user.target.wants", r"^numatune-boot\.service$", False),
                    ("/etc/rc.d/rc3.d", r"^S[0-9]+numatune-boot$", False),
                    ("/etc/rc.d/rc5.d", r"^S[0-9]+numatune-boot$", False),
                    ("/etc", r"^inittab$", False),
                    ("/usr/bin", r"^numatune$", False),
                    ("/usr/local/bin", r"^numatune$", False),
                )))
