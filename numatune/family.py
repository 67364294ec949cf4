"""The one record every knob family fills (see docs/DEVELOPING.md).

The core (engine, plan, commands, transaction, reports, TUI) knows families
only through this record and through the data on the changes and findings
they yield; it never names one. A family is a package under
``numatune/families/<name>/`` whose ``__init__`` builds its ``FAMILY``.
"""
from __future__ import annotations

import importlib
from collections import namedtuple
from collections.abc import Mapping

from numatune.model.records import field, record

# A plain namedtuple and records, not typing.NamedTuple and dataclasses: a check
# loads this module, and those two would load typing, inspect, ast and dis for it.
AfterApply = namedtuple("AfterApply", "problems findings", defaults=([], []))
AfterApply.__doc__ = """What a family says once it sees the host after the writes.

    ``problems`` (list of str) refuse the run (it is rolled back); ``findings`` are reported
    with the run (a pool the kernel filled less than asked)."""


WRITE_VERBS = ("capture", "perform", "current_matches", "restore", "describe")


class WriteKinds(Mapping):
    """A family's write kinds by module name ({"kind": "package.module"}), each
    imported when an apply, a revert or a journal lookup first asks for it: a
    plan or a check writes nothing and loads none of them."""

    def __init__(self, modules):
        self._modules = dict(modules)
        self._checked = {}

    def __getitem__(self, kind):
        module = self._checked.get(kind)
        if module is None:
            module = importlib.import_module(self._modules[kind])
            # What problems() checks of a module given as such, checked here on its first import.
            missing = [v for v in WRITE_VERBS if not callable(getattr(module, v, None))]
            if missing:     # a family's bug, not the user's: -O must not skip it
                raise RuntimeError("write kind %s has no %s" % (kind, ", ".join(v + "()" for v in missing)))
            self._checked[kind] = module
        return module

    def __iter__(self):
        return iter(self._modules)

    def __len__(self):
        return len(self._modules)


@record(frozen=True)
class Snapshot:
    """What ``numatune snapshot`` captures for the family.

    ``patterns``: (directory, POSIX ERE for names, descend) in the form the
    standalone sh script also reads. ``expand(root)``: more such patterns found
    on the host (Oracle homes from /etc/oratab); ``sh_expand`` is the same in
    POSIX sh (a snippet run inside ``capture_all``). ``live(root)``: on the
    live host only, ``(paths, {archive name: bytes})`` for files behind sysfs
    links or made by a tool (an ethtool dump); ``sh_live`` is the same in POSIX
    sh (run inside ``capture_live`` on the live host, with ``keep_file PATH``),
    where a tool's output may be its plain text if the family can parse it."""
    patterns: Tuple[tuple, ...] = ()
    keep: Tuple[str, ...] = ()
    keep_all: Tuple[str, ...] = ()
    expand: Optional[Callable] = None
    sh_expand: str = ""
    live: Optional[Callable] = None
    sh_live: str = ""


def _nothing(*_args):
    return ()


def _no_rivals(change, plan, facts):
    return []


@record(frozen=True)
class Family:
    # The key of its facts (``facts[name]``) and of its resolved values.
    name: str
    # The plan areas its changes and findings carry (``--only``/``--skip``).
    areas: Tuple[str, ...]
    # Top-level policy tables it declares: {"table": schema}.
    policy: Dict[str, object]
    # read(root, data) -> JSON-able facts; I/O under the root only.
    read: Callable
    # diff(data, facts) -> Change/Finding/Compliant; pure.
    diff: Callable
    # check_policy(data) -> SchemaError...; cross-field rules.
    check_policy: Callable = _nothing
    # check_host(data, root) -> SchemaError...; what only the host can tell is a
    # policy error (a key its kernel lacks that is a typo of one it has), before any read or write.
    check_host: Callable = _nothing
    # resolve(data, facts) -> values derived from facts, computed once and
    # kept as facts["resolved"][name] for every family's diff to read.
    resolve: Optional[Callable] = None
    # Families whose resolved values this one's resolve reads.
    resolve_after: Tuple[str, ...] = ()
    # Pure file editors its file writes name: {"editor": fn(text, **args)}.
    editors: Dict[str, Callable] = field(default_factory=dict)
    # Write kinds of its own: {"kind": module with capture/perform/current_matches/restore/describe},
    # or a WriteKinds of their module names (imported on use).
    write_kinds: Dict[str, object] = field(default_factory=dict)
    snapshot: Snapshot = Snapshot()
    # after_apply(data, changes, facts_after) -> AfterApply.
    after_apply: Optional[Callable] = None
    # reread(root, data, facts, ops) -> what read(root, data) returns after the
    # journaled ``ops`` (every family's, oldest first) were written over the
    # host whose facts the plan read (``facts``: this family's), reading again
    # only what writes can change (verify after apply: a giant host's device
    # identities are most of a plan's reads, and no write changes them). None:
    # these ops may have changed more (a host tool ran); read() is called.
    reread: Optional[Callable] = None
    # rivals(change, plan, facts) -> ["who else sets what this change sets"].
    rivals: Callable = _no_rivals
    # facts_lines(facts) -> lines for `numatune facts` (text form).
    facts_lines: Callable = _nothing
    # recommend(facts) -> Entry... (numatune.recommend.entry): what `numatune
    # recommend` writes for this host's shape, each with its source and comment.
    recommend: Optional[Callable] = None
    # Policy tables that make read() gather what recommend needs (merged for one
    # read of every family: which devices exist, not only those a policy names).
    survey: Dict[str, object] = field(default_factory=dict)
    # as_policy(facts) -> ({table: content}, policy data to read more with):
    # the host as it is, in the family's policy tables (`facts --format policy`).
    as_policy: Optional[Callable] = None
    # read_whole(root, data) -> the facts `numatune facts` shows (and recommend,
    # and `facts --format policy`), where read() leaves out what only they show
    # (what no diff reads: a giant host's device sizes, holders, NUMA nodes). None: read().
    read_whole: Optional[Callable] = None

    def owns(self, item):
        return getattr(item, "family", None) == self.name


def problems(families: Iterable[Family], imports=True):
    """What is wrong with a set of records: a list of strings (the record test
    and the registry both use it). ``imports=False`` (the registry, as a plan
    loads families) leaves a WriteKinds's modules unimported: each is checked
    when first imported."""
    from .model import AREAS
    out, names, editors, kinds = [], set(), {}, {}
    for f in families:
        if not isinstance(f, Family):
            out.append("%r is not a Family record" % (f,))
            continue
        if not f.name.isidentifier() or f.name in names:
            out.append("%s: name must be a unique identifier" % f.name)
        names.add(f.name)
        if not f.areas or any(a not in AREAS for a in f.areas):
            out.append("%s: areas %r must be among %s" % (f.name, f.areas, ", ".join(AREAS)))
        for attr in ("read", "diff", "check_policy", "check_host", "rivals", "facts_lines"):
            if not callable(getattr(f, attr)):
                out.append("%s: %s is not callable" % (f.name, attr))
        for attr in ("resolve", "after_apply", "reread", "recommend", "as_policy", "read_whole"):
            if getattr(f, attr) is not None and not callable(getattr(f, attr)):
                out.append("%s: %s is not callable" % (f.name, attr))
        for name, fn in f.editors.items():
            if name in editors:
                out.append("%s: editor %s is also %s's" % (f.name, name, editors[name]))
            editors[name] = f.name
            if not callable(fn):
                out.append("%s: editor %s is not callable" % (f.name, name))
        for kind in f.write_kinds:
            if kind in kinds:
                out.append("%s: write kind %s is also %s's" % (f.name, kind, kinds[kind]))
            kinds[kind] = f.name
            if not imports and isinstance(f.write_kinds, WriteKinds):
                continue
            try:
                module = f.write_kinds[kind]
            except RuntimeError as e:
                out.append("%s: %s" % (f.name, e))
                continue
            for verb in WRITE_VERBS:
                if not callable(getattr(module, verb, None)):
                    out.append("%s: write kind %s has no %s()" % (f.name, kind, verb))
        for table in f.policy:
            if not isinstance(table, str):
                out.append("%s: policy table %r is not a name" % (f.name, table))
    for f in families:
        if isinstance(f, Family):
            for dep in f.resolve_after:
                if dep not in names:
                    out.append("%s: resolve_after names %s, which is not registered" % (f.name, dep))
    return out
