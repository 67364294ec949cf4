"""The registry of knob families: adding one is a folder under here and one
line in ``DECLARED``. Order is plan order within an area.

A family's package is imported only when something needs it: a `check` of a
three-sysctl policy imports the sysctl, boot and tuned families and none of
the storage, network or Oracle code (start-up is most of a small check). So
each family is declared here with what selects it, without importing it:

- ``areas``: the plan areas its rules carry (what `--only`/`--skip` offer);
- ``tables``: the top-level policy tables its record declares (checked when
  the family loads: a record declaring a table not listed here fails loudly);
- ``runs_for``: other tables whose presence makes it plan too (tuned reports
  its profile's conflicts with [sysctl], [kernel], [cpu] and [[cpuset]]);
- ``always``: it plans whatever the policy holds (boot: the numa=off finding);
- ``present_if``: host files that make it plan whatever the policy holds
  (an /etc/oratab: instances are checked without being named in the policy);
- ``needs``: families whose facts or resolved values its diff reads;
- ``editors``/``write_kinds``: the names its file writes and own writes use,
  so a journal record of any family finds its code without importing all.

``FAMILIES``, ``BY_NAME``, ``EDITORS`` and ``WRITE_KINDS`` keep their
meaning for callers that need every family (snapshot, apply, revert); they
import on first use. ``for_policy(data)`` is the set a plan needs: the same
plan as with every family, since the others read and yield nothing for it.
"""
import importlib
from collections import namedtuple
from collections.abc import Mapping, Sequence

from numatune import AREAS

# A plain namedtuple, not typing.NamedTuple, and numatune.family imported only by load():
# the parser reads this table for `--only`'s help, and `--help` should not import
# typing, dataclasses and inspect to print it.
Declared = namedtuple("Declared", "name areas tables runs_for always present_if needs editors write_kinds",
                      defaults=((), (), False, (), (), (), ()))


BOOT_EDITORS = tuple("boot." + k for k in ("bls", "grubenv", "default_grub", "kernel_cmdline", "grub_cfg", "grub_conf"))
DECLARED = (
    # The boot path for values no other file keeps (numatune.facts.bootfile): no table, read for the families
    # that persist through it.
    Declared("bootunit", ("memory",), editors=("boot_value", "boot_replay", "boot_unit", "boot_wants")),
    Declared("sysctl", ("kernel", "memory", "network"), ("sysctl",), editors=("sysctl_set", "sysctl_disable")),
    # Its resolve says whether the next boot still has numa=off (hugepages and cpuset read it); its diff reads
    # the pool's boot arguments from hugepages' resolve (diffs run after every resolve).
    # Without a bootloader file it knows, THP is kept by the boot file (bootunit).
    Declared("boot", ("kernel", "memory"), ("kernel",), always=True, needs=("bootunit",), editors=BOOT_EDITORS),
    # Persists vm.nr_hugepages through the sysctl family's view of sysctl.d.
    # Reads the Oracle instances' needs: a pool is never shrunk below them.
    # Per-node pools are kept at boot by the bootloader (node format, Linux 5.16+: the boot family) or the
    # boot file (the bootunit family).
    Declared("hugepages", ("memory",), ("hugepages",), needs=("sysctl", "oracle", "bootunit", "boot")),
    # A governor or C-state limit nothing else keeps is planned again at boot through the replay file (bootunit).
    Declared("cpu", ("cpu",), ("cpu",), needs=("boot", "bootunit")),
    Declared("cpuset", ("cpu",), ("cpuset",), needs=("boot",), editors=("cgconfig_group", "slice_set", "slice_wants"), write_kinds=("cgroup",)),
    # Runs for [[block]] too: with [tuned] persist = "profile" its child profile keeps the queue settings.
    Declared("tuned", ("cpu", "kernel", "memory"), ("tuned",),
             runs_for=("sysctl", "kernel", "cpu", "cpuset", "block"), editors=("tuned_line", "tuned_profile")),
    # IRQ affinity is planned again at each boot through the replay file (bootunit).
    Declared("network", ("network",), ("net", "bond"), needs=("bootunit",),
             editors=("net_nm", "net_networkd", "net_ifcfg", "net_link", "net_ifcfg_bond", "net_ethtool"),
             write_kinds=("netdev",)),
    Declared("storage", ("storage",), ("block",), editors=("block_udev_rules", "multipath_section"),
             write_kinds=("blockattr", "multipath")),
    # Runs for [hugepages]: count = "auto" sizes the pool from its instances (from /etc/oratab when the policy
    # names none; with none found the pool is left alone, issue #13).
    # The papers' host-level advice (MTU, listeners, irqbalance) on any Oracle host, whatever the policy.
    Declared("advice", ("network", "cpu", "oracle"), (), present_if=("/etc/oratab",)),
    Declared("oracle", ("oracle", "memory"), ("oracle",), runs_for=("hugepages",), present_if=("/etc/oratab",),
             needs=("hugepages",),
             editors=("oracle_pfile_set", "oracle_memlock", "oracle_generated"), write_kinds=("sql",)),
)
_loaded = {}
_checked = []


def _declared(name):
    return next((d for d in DECLARED if d.name == name), None)


def load(name):
    """The Family record of a declared family, importing its package once."""
    family = _loaded.get(name)
    if family is None:
        spec = _declared(name)
        if spec is None:
            raise KeyError(name)
        family = importlib.import_module("numatune.families." + name).FAMILY
        undeclared = ([t for t in family.policy if t not in spec.tables]
                      + [a for a in family.areas if a not in spec.areas]
                      + [e for e in family.editors if e not in spec.editors]
                      + [k for k in family.write_kinds if k not in spec.write_kinds])
        # A table, editor or kind missing here would be planned or undone without its family: refuse at once.
        if family.name != name or undeclared:
            raise RuntimeError("registry: declare %s's %s" % (name, undeclared))
        # Alone, a record cannot see the families it names in resolve_after: all_families() checks those.
        from numatune.family import problems
        said = [p for p in problems([family], imports=False) if "resolve_after" not in p]
        if said:
            raise RuntimeError("; ".join(said))
        _loaded[name] = family
    return family


def all_families():
    """Every family, in plan order (imports them all)."""
    out = tuple(load(d.name) for d in DECLARED)
    if _checked != [DECLARED]:
        from numatune.family import problems
        said = problems(out, imports=False)
        if said:
            raise RuntimeError("; ".join(said))
        _checked[:] = [DECLARED]
    return out


def selected(names):
    """The families ``names`` need (with what they read from), in plan order."""
    want, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in want:
            want.add(name)
            todo.extend(_declared(name).needs)
    return [load(d.name) for d in DECLARED if d.name in want]


def for_policy(data):
    """The families that read, resolve, check and diff for a policy (merged data)."""
    tables = set(data)
    return selected(d.name for d in DECLARED
                    if d.always or tables.intersection(d.tables) or tables.intersection(d.runs_for))


def for_host(data, root):
    """``for_policy`` plus the families the host itself calls for (``present_if``)."""
    names = [f.name for f in for_policy(data)]
    names += [d.name for d in DECLARED if d.name not in names and any(root.exists(p) for p in d.present_if)]
    return selected(names)


def for_facts(data, facts):
    """The families ``engine.gather`` read for these facts (``facts["families"]``)."""
    return selected(facts["families"]) if "families" in facts else for_policy(data)


def selectors():
    """What `--only`/`--skip` take: every area a family's rules carry (in plan
    order), then each family's name (selects all of that family's rules).
    From the declared table: the parser imports no family."""
    carried = {a for d in DECLARED for a in d.areas}
    out = [a for a in AREAS if a in carried]
    return tuple(out + [d.name for d in DECLARED if d.name not in out])


def keeps(item, family_name, only=None, skip=None):
    """Whether ``--only``/``--skip`` keep a change, finding or compliant rule."""
    names = (item.area, family_name)
    if only and not any(n in only for n in names):
        return False
    return not (skip and any(n in skip for n in names))


def table_names():
    """Every declared policy table, without importing a family."""
    return [t for d in DECLARED for t in d.tables]


def table_schema(table):
    """The schema of one top-level policy table, importing only its family (None: no family declares it)."""
    for d in DECLARED:
        if table in d.tables:
            return load(d.name).policy.get(table)
    return None


class _Families(Sequence):
    """FAMILIES: every family, imported when first used."""

    def __getitem__(self, i):
        return all_families()[i]

    def __len__(self):
        return len(DECLARED)

    def __iter__(self):
        return iter(all_families())

    def __add__(self, other):
        return all_families() + tuple(other)


class _ByName(Mapping):
    """A name -> item mapping resolved through the declared table, importing one
    family per lookup; iterating imports them all."""

    def __init__(self, owner, items):
        self._owner = owner      # Declared -> the names it declares
        self._items = items      # Family -> {name: item}

    def __getitem__(self, key):
        spec = next((d for d in DECLARED if key in self._owner(d)), None)
        if spec is not None:
            found = self._items(load(spec.name))
            if key in found:
                return found[key]
        raise KeyError(key)

    def __iter__(self):
        return iter([k for f in all_families() for k in self._items(f)])

    def __len__(self):
        return sum(len(self._items(f)) for f in all_families())


FAMILIES = _Families()
BY_NAME = _ByName(lambda d: (d.name,), lambda f: {f.name: f})
EDITORS = _ByName(lambda d: d.editors, lambda f: f.editors)
WRITE_KINDS = _ByName(lambda d: d.write_kinds, lambda f: f.write_kinds)


def resolve_order(families=None):
    """Families with a resolve step, each after those it reads from (among
    ``families``, default all: a dependency not planned has nothing to resolve
    for this policy)."""
    families = list(all_families() if families is None else families)
    present = {f.name: f for f in families}
    done, out = set(), []

    def visit(f, stack=()):
        if f.name in done:
            return
        if f.name in stack:
            raise ValueError("resolve_after cycle through %s" % " -> ".join(stack + (f.name,)))
        for dep in f.resolve_after:
            if dep in present:
                visit(present[dep], stack + (f.name,))
        done.add(f.name)
        out.append(f)
    for f in families:
        visit(f)
    return [f for f in out if f.resolve is not None]
