"""The core never imports Textual, pyroute2 or python-oracledb: `import
numatune.cli`, `--version`, `check`, `facts` and `plan` start without them
(they cost start-up time, and a host may not have them installed). Under
--root nothing talks to the kernel or a database, so even a policy with
network and Oracle sections needs none of them there.

Each case runs in a fresh interpreter with stand-in packages of those names
first on the path, so an import is seen whether or not the real library is
installed on this machine.
"""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, write

sys.path.insert(0, str(REPO / "bench"))
import bench_policy  # noqa: E402
from make_host import make_host  # noqa: E402

FORBIDDEN = ("textual", "pyroute2", "oracledb")

# argv[1]: a module to import first (the harness check), argv[2]: CLI args as JSON, or null for `import numatune.cli`.
PROBE = """
import importlib, json, os, sys
if sys.argv[1]:
    importlib.import_module(sys.argv[1])
args = json.loads(sys.argv[2])
status = None
if args is None:
    import numatune.cli
else:
    from numatune.cli import main
    try:
        status = main(args)
    except SystemExit as e:
        status = e.code
loaded = sorted(m for m in sys.modules if m.split(".")[0] in %r)
with open(os.environ["PROBE_OUT"], "w") as f:
    json.dump({"status": status, "loaded": loaded}, f)
""" % (FORBIDDEN,)


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    base = tmp_path_factory.mktemp("stubs")
    for name in FORBIDDEN:
        write(base, "%s/__init__.py" % name, "STUB = True\n")
    write(base, "uses_textual.py", "import textual\n")
    return base


def probe(stubs, tmp_path, args, first=""):
    out = tmp_path / "probe.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(stubs), str(REPO)]), PROBE_OUT=str(out),
               NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-c", PROBE, first, json.dumps(args)], capture_output=True,
                          text=True, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """A small synthetic host with disks, multipath, NICs, cgroups and an Oracle instance."""
    root = tmp_path_factory.mktemp("host") / "root"
    make_host(str(root), sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=2, queues=2, instances=1, procs=80)
    return root


def test_the_probe_sees_an_import(stubs, tmp_path):
    # The harness can fail: a module that imports textual is caught.
    assert probe(stubs, tmp_path, None, first="uses_textual")["loaded"] == ["textual"]


def test_import_cli(stubs, tmp_path):
    assert probe(stubs, tmp_path, None)["loaded"] == []


def test_version(stubs, tmp_path):
    assert probe(stubs, tmp_path, ["--version"]) == {"status": 0, "loaded": []}


@pytest.mark.parametrize("command", [["check", "--format", "json"], ["check"], ["plan"],
                                     ["plan", "--format", "json"], ["facts"]])
def test_default_policy_on_a_root(stubs, tmp_path, host, command):
    result = probe(stubs, tmp_path, command + ["--root", str(host)])
    assert result["status"] in (0, 1, 2), result
    assert result["loaded"] == []


def test_check_on_this_machine(stubs, tmp_path):
    # The real / as the monitoring timer runs it (reads only).
    result = probe(stubs, tmp_path, ["check", "--format", "json"])
    assert result["status"] in (0, 1, 2), result
    assert result["loaded"] == []


@pytest.mark.parametrize("command", [["plan"], ["check", "--format", "json"]])
def test_every_area_on_a_root(stubs, tmp_path, host, command):
    policy = str(tmp_path / "every-area.toml")
    included, _ = bench_policy.build(policy)
    result = probe(stubs, tmp_path, command + ["--root", str(host), "--policy", policy])
    assert result["status"] in (0, 1, 2), (included, result)
    assert result["loaded"] == [], included
