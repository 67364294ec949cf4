"""What a family recommends: one entry of the policy `numatune recommend` writes.

An entry is data, not text: the document module turns entries into commented
TOML (tomlkit) or JSON. A family's ``recommend(facts)`` yields them."""
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

# The papers under /work/shared/papers (docs/papers.md): cite them by file name.
SUPERDOME = "001_211b0b645b2f1cc8.txt"
CAGING_RAC = "000_bee41b021388c063.txt"
NUMA_SUMA = "003_141311754ed1bdcf.txt"
CPU_COUNT = "004_bf754af76eb0e5fd.txt"


@dataclass(frozen=True)
class Entry:
    """``table`` is the policy table ("sysctl", "kernel.cmdline", "block",
    "oracle.instance"); ``key`` a key in it, or None with ``array`` for one
    whole ``[[table]]`` element (``value`` a dict), or None with no value for
    a comment alone (what the facts do not say: nothing set). ``question``:
    the entry is written commented out, with the site decision to make.
    ``extends``: a shipped policy this host's shape calls for."""
    table: str = ""
    key: Optional[str] = None
    value: Any = None
    note: Tuple[str, ...] = ()
    question: str = ""
    array: bool = False
    extends: str = ""
    source: Tuple[str, ...] = field(default=())
    # The plan's change ids the entry makes: one a finding refuses is written
    # commented out instead, with the finding as its question.
    plans: Tuple[str, ...] = ()

    @property
    def sets(self):
        """Whether the entry sets something in the policy (not commented, not a note)."""
        return not self.question and not self.extends and (self.array or self.key is not None)

    def to_json(self):
        out = {"table": self.table, "key": self.key, "value": self.value, "note": list(self.note),
               "array": self.array, "source": list(self.source)}
        if self.question:
            out["question"] = self.question
        if self.extends:
            out["extends"] = self.extends
        return out


def note(table, *lines, source=()):
    """A comment alone: what the host has, or why nothing is set."""
    return Entry(table=table, note=tuple(lines), source=tuple(source))


def nodes(facts):
    """The NUMA node ids the kernel shows (one under numa=off, whatever the sockets)."""
    return sorted((facts.get("topology") or {}).get("nodes") or {}, key=int)


def sockets(facts):
    """The physical packages the CPUs sit in (the sockets a numa=off kernel hides)."""
    cpus = (facts.get("topology") or {}).get("cpus") or {}
    return sorted({c.get("physical_package_id") for c in cpus.values()} - {None})


def nodes_after_boot(facts):
    """(node ids the next boot will show, how that is known): under numa=off the
    firmware's SRAT domains (the kernel's one node says nothing), None when no
    such fact was read (ask, never guess)."""
    if "numa=off" not in ((facts.get("host") or {}).get("cmdline") or []):
        return nodes(facts), "the kernel's nodes"
    firmware = (facts.get("topology") or {}).get("firmware") or {}
    if firmware.get("domains"):
        return [str(d) for d in range(len(firmware["domains"]))], "%d proximity domains in the firmware's %s" % (
            len(firmware["domains"]), firmware.get("source") or "SRAT")
    return None, "numa=off hides the nodes and no ACPI SRAT was read (%d sockets)" % len(sockets(facts))
