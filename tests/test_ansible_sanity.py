"""`ansible-test sanity` on the collection (packaging/ansible), the whole set as a collection's CI runs it
(issue 27), in an ansible_collections/NS/NAME tree, with this Python and the requirements ansible-test
pins (installed from the package index this machine's pip uses)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

COLLECTION = REPO / "packaging" / "ansible"
PYTHON = "%d.%d" % sys.version_info[:2]
# No sanity test is skipped: with --python (no --docker, no remote) every test of the set runs here, and the
# requirements come from the package index. These find nothing to look at in this collection (it has no
# changelogs/ fragments, no PowerShell, no shell script and no __init__.py under plugins/): ansible-test says
# "No tests applicable".
NOTHING_TO_TEST = {"changelog", "empty-init", "pslint", "shellcheck"}
# The tests that read the modules' code: each must have run on it, not found nothing.
ON_THE_MODULES = {"ansible-doc", "compile", "import", "pep8", "pylint", "validate-modules", "yamllint",
                  "runtime-metadata", "no-assert", "shebang", "use-argspec-type-path"}

# ansible-test bootstraps pip in its sanity venv from a script it downloads; offline, this stands in:
# pip from ensurepip, the package index settings of the pip running these tests.
BOOTSTRAP = """import ensurepip, os, subprocess, sys
ensurepip.bootstrap(upgrade=True)
with open(os.path.join(sys.prefix, "pip.conf"), "w") as f:
    f.write(%r)
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel") and not a.startswith("pip==")]
if [a for a in args if not a.startswith("-")]:
    sys.exit(subprocess.call([sys.executable, "-m", "pip", "install"] + args))
"""


def _pip_conf():
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    lines = ["[global]"]
    for entry in out.splitlines():
        key, _, value = entry.partition("=")
        if key.startswith(("global.", ":env:.")):
            lines.append("%s = %s" % (key.split(".", 1)[1], value.strip("'\"")))
    return "\n".join(dict.fromkeys(lines)) + "\n"


@pytest.fixture(scope="module")
def sanity(tmp_path_factory):
    """sanity(tree, *args) -> (returncode, output) of `ansible-test sanity -v` run in tree. One HOME for the
    module, so the second run reuses the sanity venvs the first one built."""
    here = Path(sys.executable).parent / "ansible-test"
    tool = str(here) if here.exists() else shutil.which("ansible-test")
    if not tool:
        pytest.skip("ansible-test is not installed (pip install -r requirements-test.txt)")
    import ansible_test._internal.python_requirements as req
    pins = re.search(r"pip=['\"]([0-9.]+)['\"]", Path(req.__file__).read_text())
    if pins is None:
        pytest.skip("cannot tell which pip this ansible-test bootstraps")
    home = tmp_path_factory.mktemp("ansible-test-home")
    cache = home / ".ansible" / "test" / "cache"
    cache.mkdir(parents=True)
    (cache / ("get_pip_%s.py" % pins.group(1).replace(".", "_"))).write_text(BOOTSTRAP % _pip_conf())
    env = dict(os.environ, HOME=str(home), LC_ALL="C.UTF-8")

    def run(tree, *args):
        proc = subprocess.run([tool, "sanity", "-v", "--python", PYTHON, "--requirements"] + list(args),
                              cwd=str(tree), env=env, capture_output=True, text=True)
        out = proc.stdout + proc.stderr
        if proc.returncode != 0 and " issue" not in out and "Could not find a version" in out:
            pytest.skip("ansible-test could not install its sanity requirements here")
        return proc.returncode, out
    run.tool, run.env = tool, env
    return run


def _tree(tmp_path):
    tree = tmp_path / "ansible_collections" / "numatune" / "numatune"
    shutil.copytree(COLLECTION, tree, ignore=shutil.ignore_patterns("__pycache__", "output"))
    return tree


def _sections(out):
    """{sanity test name: its lines of output}, in the order ansible-test ran them."""
    found, name = {}, None
    for line in out.splitlines():
        m = re.match(r'Running sanity test "([a-z0-9-]+)"', line)
        if m:
            name = m.group(1)
            found[name] = []
        elif name:
            found[name].append(line)
    return found


def test_the_whole_sanity_set_passes(sanity, tmp_path):
    tree = _tree(tmp_path)
    listed = subprocess.run([sanity.tool, "sanity", "--list-tests", "--python", PYTHON], cwd=str(tree),
                            env=sanity.env, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    every = set(listed.stdout.split())
    assert {"pylint", "validate-modules", "pep8", "import", "yamllint"} <= every, every
    code, out = sanity(tree)
    assert code == 0, out[-6000:]
    ran = _sections(out)
    assert set(ran) == every, sorted(every ^ set(ran))
    idle = {name for name, lines in ran.items() if any("No tests applicable" in line for line in lines)}
    assert idle <= NOTHING_TO_TEST, idle
    assert not idle & ON_THE_MODULES


def test_pylint_in_the_set_finds_what_it_found_before_the_fix(sanity, tmp_path):
    """The two findings issue 27 reported (fixed in the modules) come back when planted in a copy: the set
    above really lints the modules."""
    tree = _tree(tmp_path)
    module = tree / "plugins" / "modules" / "numatune.py"
    text = module.read_text()
    planted = text.replace('plan = engine.make_plan(root, policy, params["only"], params["skip"])[0]',
                           'plan, _ = engine.make_plan(root, policy, params["only"], params["skip"])')
    planted = planted.replace("undo = list(tx.changes)", "undo = [c for c in tx.changes]")
    assert planted.count("plan, _ =") == 1 and planted.count("[c for c in tx.changes]") == 1
    module.write_text(planted)
    code, out = sanity(tree, "--test", "pylint")
    assert code != 0
    assert re.search(r"plugins/modules/numatune\.py:\d+:\d+: disallowed-name", out), out[-3000:]
    assert re.search(r"plugins/modules/numatune\.py:\d+:\d+: unnecessary-comprehension", out), out[-3000:]
