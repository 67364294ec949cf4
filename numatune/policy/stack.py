"""Loading and validating policies.

A policy is TOML; it may ``extends`` others (shipped names or paths), and
several ``--policy`` options stack the same way: later overrides earlier,
key by key. Every file is validated on its own against the schema the knob
families declare, so an error names the file and line that holds the mistake.
"""
import os
from collections.abc import Mapping

from numatune.errors import PolicyError
from numatune.families.registry import for_policy, table_names, table_schema
from numatune.policy import bounds
from numatune.policy.loader import merge, parse_file, resolve_ref, schema_error, line_of
from numatune.policy.schema import Array, Scalar, SchemaError, Table
from numatune.policy.waiver import WAIVER

POLICY_TABLE = Table({
    "name": Scalar(str),
    "description": Scalar(str),
    "extends": Array(Scalar(str)),
    # Files of other packages (sysctl.d from the Oracle preinstall RPM) that
    # would override ours: "edit" comments their line out (journaled),
    # "report" only names them as a finding.
    "foreign_files": Scalar(str, choices=("edit", "report")),
})

SITE_POLICY = "/etc/numatune/policy.toml"
DEFAULT_SHIPPED = "oracle-numa"


def shipped_dir():
    # An installed package keeps them beside its modules: found without importlib.resources (and the
    # zipfile and tempfile it imports, a tenth of a small check's start-up).
    beside = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "policies")
    if os.path.isdir(beside):
        return beside
    from importlib.util import find_spec
    try:
        spec = find_spec("numatune.policies")
    except ImportError:
        spec = None
    if spec is None:
        return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "policies")
    for path in spec.submodule_search_locations or ():
        if os.path.isdir(path):
            return path     # where importlib.resources.files() would say, when the package is a directory
    try:
        from importlib.resources import files
        path = str(files("numatune.policies"))
        if os.path.isdir(path):
            return path
    except (ImportError, ModuleNotFoundError, TypeError):
        pass
    # A source checkout run without installing: policies/ beside the package.
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "policies")


def shipped_names():
    return sorted(n[:-5] for n in os.listdir(shipped_dir()) if n.endswith(".toml"))


class _Tables(Mapping):
    """The top-level tables: the core's, and each family's schema imported only
    when a policy holds its table (a sysctl-only policy loads no Oracle code)."""

    CORE = {"policy": POLICY_TABLE, "waiver": WAIVER}

    def __getitem__(self, name):
        spec = self.CORE.get(name) or table_schema(name)
        if spec is None:
            raise KeyError(name)
        return spec

    def __iter__(self):
        return iter(list(self.CORE) + table_names())

    def __len__(self):
        return len(self.CORE) + len(table_names())


def schema():
    return Table(_Tables())


class Policy:
    def __init__(self, data, sources, texts):
        self.data = data
        self.sources = sources
        self.texts = texts

    @property
    def name(self):
        return self.data.get("policy", {}).get("name") or os.path.basename(self.sources[-1])[:-5]

    def section(self, name, default=None):
        return self.data.get(name, {} if default is None else default)

    def locate(self, dotted, parts=None):
        """``file:line`` of the last file defining a key, for later errors."""
        for path in reversed(self.sources):
            line = line_of(self.texts[path], dotted, parts)
            if line:
                return "%s:%d" % (path, line)
        return self.sources[-1]


def default_refs(root):
    site = root.join(SITE_POLICY)
    return [site] if os.path.exists(site) else [DEFAULT_SHIPPED]


def load(refs, root=None, cwd=None):
    """A validated, merged Policy from policy references (names or paths)."""
    if not refs:
        refs = default_refs(root) if root is not None else [DEFAULT_SHIPPED]
    spec = schema()
    texts = {}
    order = []
    data = {}
    for ref in refs:
        path = resolve_ref(ref, cwd or os.getcwd(), shipped_dir())
        data = merge(data, _load_chain(path, spec, texts, order, (), data), spec)
    data.setdefault("policy", {})
    data["policy"].pop("extends", None)
    from numatune.policy.waiver import normalize
    normalize(data)
    policy = Policy(data, order, texts)
    try:
        bounds.check(data)    # arrays of tables add up across files
    except SchemaError as e:
        raise PolicyError("%s: %s" % (policy.locate(e.key, e.parts), e.message), e.hint)
    _cross_check(policy, root)
    return policy


def from_data(data, label):
    """A Policy from an already merged table (a saved plan's), validated as a file would be."""
    try:
        bounds.check(data)
        schema().validate(data, "")
    except SchemaError as e:
        raise PolicyError("%s: the policy saved in it is not valid: %s" % (label, e.message), e.hint)
    policy = Policy(data, [label], {label: ""})
    _cross_check(policy)
    return policy


def _load_chain(path, spec, texts, order, stack, before):
    """The merged data of ``path`` and what it extends. ``before``: what the files loaded earlier merged
    to, so that an error names an entry of an array of tables by its place in the merged policy
    (``block[1]``), as the plan and check do."""
    if path in stack:
        chain = " -> ".join(list(stack) + [path])
        raise PolicyError("%s: extends itself: %s" % (path, chain), "remove the cycle from 'extends'")
    own, text = parse_file(path)
    try:
        bounds.check(own)     # first: a list past its bound is not validated item by item
        spec.validate({"policy": own["policy"]} if "policy" in own else {}, "")   # extends, before it is used
    except SchemaError as e:
        raise schema_error(path, text, e)
    texts[path] = text
    merged = {}

    def where():
        # The file:line an error names, found only for an error: finding it reads the file's lines
        # with two patterns compiled for it (a millisecond of every plan of a policy that extends another).
        return "%s:%s" % (path, line_of(text, "policy.extends") or "?")

    for ref in own.get("policy", {}).get("extends", []):
        try:
            parent = resolve_ref(ref, os.path.dirname(path), shipped_dir())
        except PolicyError as e:
            raise PolicyError("%s: policy.extends: %s" % (where(), e.message), e.hint)
        if not os.path.isfile(parent):
            raise PolicyError("%s: policy.extends: %s: no such policy file" % (where(), parent),
                              "paths are relative to the file that names them")
        merged = merge(merged, _load_chain(parent, spec, texts, order, stack + (path,), merge(before, merged, spec)),
                       spec)
    try:
        # The entries merged before this file's come first: they were valid in their own files, so the
        # first problem is this file's, numbered as the merged policy numbers it.
        spec.validate(_after(merge(before, merged, spec), own), "")
    except SchemaError as e:
        raise schema_error(path, text, e)
    order.append(path)
    return merge(merged, own, spec)


def _after(earlier, own):
    """``own`` with each array of tables preceded by the entries ``earlier`` holds for it (as merge adds them)."""
    out = dict(own)
    for key, value in own.items():
        old = earlier.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            out[key] = _after(old, value)
        elif (isinstance(old, list) and isinstance(value, list) and value
              and all(isinstance(v, dict) for v in value + old)):
            out[key] = old + value
    return out


def _cross_check(policy, root=None):
    for family in for_policy(policy.data):
        errors = list(family.check_policy(policy.data))
        if root is not None:
            errors += list(family.check_host(policy.data, root))
        for err in errors:
            where = policy.locate(err.key, err.parts)
            raise PolicyError("%s: %s" % (where, err.message), err.hint)


__all__ = ["load", "Policy", "PolicyError", "shipped_dir", "shipped_names", "default_refs"]
