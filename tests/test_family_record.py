"""The family layout holds: every registered family fills the declared
record, the package has no import cycle (imports inside functions count),
the core names no family, and numatune/ keeps few top-level modules."""
import ast
import re
from pathlib import Path

import pytest

from numatune.family import Family, WriteKinds, problems
from numatune.model.records import replace
from numatune.families.registry import FAMILIES
from numatune.families.sysctl import FAMILY as SYSCTL

PKG = Path(__file__).resolve().parents[1] / "numatune"
TUI = Path(__file__).resolve().parents[1] / "tui" / "numatune_tui"
NAMES = [f.name for f in FAMILIES]
# The id prefixes families give their changes and findings (ids are a contract
# users write waivers against, so they keep their historic names).
ID_PREFIXES = ("sysctl", "thp", "cmdline", "hugepages", "cpu", "cpuset", "tuned", "net", "block", "oracle")


def test_every_registered_family_fills_the_record():
    assert problems(FAMILIES) == []
    assert {f.name for f in FAMILIES} == {p.name for p in (PKG / "families").iterdir()
                                          if (p / "__init__.py").exists()}, "one folder per family, all registered"


@pytest.mark.parametrize("broken, said", [
    (dict(areas=("nowhere",)), "areas"),
    (dict(diff=None), "diff is not callable"),
    (dict(read_whole="everything"), "read_whole is not callable"),
    (dict(editors={"sysctl_set": SYSCTL.editors["sysctl_set"]}), "editor sysctl_set is also sysctl's"),
    (dict(write_kinds={"half": object()}), "write kind half has no capture()"),
    # Imported by name on use (a plan loads none): the check imports it, as its first use would.
    (dict(write_kinds=WriteKinds({"half": "numatune.errors"})), "write kind half has no capture()"),
    (dict(resolve_after=("nobody",)), "resolve_after names nobody"),
])
def test_a_record_that_is_not_filled_is_named(broken, said):
    bad = replace(SYSCTL, name="toy", **broken)
    assert any(said in p for p in problems(list(FAMILIES) + [bad]))


def test_a_write_kind_without_its_verbs_is_refused_on_use_even_under_optimisation():
    # Checked by an assert it vanished under `python -O`: the apply would have called a missing restore().
    import subprocess, sys
    code = ("from numatune.family import WriteKinds\n"
            "try:\n    WriteKinds({'half': 'numatune.errors'})['half']\n"
            "except RuntimeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("write kind half has no capture()")


def test_a_family_must_be_the_record_not_a_lookalike():
    class Lookalike:
        name, areas = "toy", ("kernel",)
    assert problems([Lookalike()]) and not isinstance(Lookalike(), Family)


def _modules():
    out = {}
    for path in PKG.rglob("*.py"):
        parts = path.relative_to(PKG.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name, path, modules):
    """Every numatune module ``name`` imports, wherever the import statement is."""
    is_pkg = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = name.split(".") if is_pkg else name.split(".")[:-1]
            if node.level:
                base = base[:len(base) - node.level + 1]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            for alias in node.names:
                full = src + "." + alias.name
                found.add(full if full in modules else src)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    # Importing a.b.c runs a/__init__ and a/b/__init__ first.
    for target in list(found):
        parts = target.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return {m for m in found if m in modules and m != name and not name.startswith(m + ".")}


def test_no_import_cycle_among_the_package_modules():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles = []

    def reach(start):
        seen, todo = set(), list(graph[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        return seen
    for name in graph:
        if name in reach(name):
            cycles.append(name)
    assert cycles == []


def _core_files():
    core = [p for p in PKG.rglob("*.py") if "families" not in p.relative_to(PKG).parts]
    return core + sorted(TUI.rglob("*.py"))


def _code_strings(tree):
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings]


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(p.parents[1])))
def test_the_core_never_names_a_family(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("numatune.families"):
            assert node.module == "numatune.families.registry", "%s imports %s" % (path.name, node.module)
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("numatune.families.") and a.name != "numatune.families.registry"
                           for a in node.names)
    id_like = re.compile(r"^(%s)\.[a-z]" % "|".join(ID_PREFIXES))
    named = [s for s in _code_strings(tree) if id_like.match(s)]
    # Reaching into a family's facts or resolved values: facts["storage"], .get("oracle").
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant)):
            key = node.args[0].value
        if key in NAMES:
            named.append(key)
    assert named == [], "%s names a family: %s" % (path.name, named)


def test_few_modules_directly_under_numatune():
    # parser.py is the CLI's argument table, apart from cli.py so that `--version` does not import argparse.
    entry = {"__init__.py", "__main__.py", "cli.py", "parser.py", "commands.py"}
    top = sorted(p.name for p in PKG.glob("*.py") if p.name not in entry)
    assert len(top) <= 8, top


def test_the_toy_family_in_the_developer_docs_plans_and_applies(tmp_path, monkeypatch, cli):
    """The documented way to add a family works as written."""
    import sys
    import types

    from numatune.families import registry

    doc = (Path(__file__).resolve().parents[1] / "docs" / "DEVELOPING.md").read_text()
    code = re.search(r"```python\n# numatune/families/toy/__init__.py\n(.*?)```", doc, re.S).group(1)
    toy = types.ModuleType("numatune.families.toy")
    exec(compile(code, "DEVELOPING.md", "exec"), toy.__dict__)
    monkeypatch.setitem(sys.modules, "numatune.families.toy", toy)
    families = registry.FAMILIES + (toy.FAMILY,)
    assert problems(families) == []
    # The one line the docs say to add, in the registry's declared table.
    monkeypatch.setattr(registry, "DECLARED", registry.DECLARED + (registry.Declared("toy", ("kernel",), ("toy",)),))
    assert [f.name for f in registry.FAMILIES] == [f.name for f in families]
    assert registry.for_policy({"toy": {}})[-1] is toy.FAMILY and toy.FAMILY not in registry.for_policy({})
    (tmp_path / "proc/sys/kernel").mkdir(parents=True)
    (tmp_path / "proc/sys/kernel/toy").write_text("0\n")
    policy = tmp_path / "p.toml"
    policy.write_text('[toy]\nvalue = 3\nwhy = "the docs say so"\n')
    status, out, err = cli("apply", "--yes", "--root", tmp_path, "--policy", policy)
    assert status == 0, out + err
    assert (tmp_path / "proc/sys/kernel/toy").read_text() == "3\n"
    status, out, err = cli("revert", "--last", "--root", tmp_path)
    assert status == 0 and (tmp_path / "proc/sys/kernel/toy").read_text() == "0\n"
