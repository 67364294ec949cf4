"""A corpus of bad policies: each gives one clear line naming file, line and
key, exit status 2, no traceback, and nothing is written to the host."""
import re
from pathlib import Path

import pytest

from conftest import run_cli, tree_digest

CASES = sorted((Path(__file__).parent / "cases" / "bad_policies").glob("*.toml"))


def _expect(path):
    first = path.read_bytes().split(b"\n", 1)[0].decode()
    assert first.startswith("# expect: "), path
    return first[len("# expect: "):]


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
@pytest.mark.parametrize("command", ["plan", "apply", "check"])
def test_bad_policy_is_one_line_and_changes_nothing(case, command, capture, cli):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    before = tree_digest(root, ignore=())
    args = [command, "--root", root, "--policy", case] + (["--yes"] if command == "apply" else [])
    status, out, err = cli(*args)
    if command == "check":
        # Nagios convention: status 3 (could not check), the one line on stdout.
        assert status == 3
        lines = (out + err).strip().splitlines()
        prefix = "numatune UNKNOWN - %s" % case
    else:
        assert status == 2
        assert out == ""
        lines = err.strip().splitlines()
        prefix = "numatune: %s" % case
    assert len(lines) == 1, out + err
    assert lines[0].startswith(prefix), lines[0]
    assert re.search(_expect(case), lines[0]), (lines[0], _expect(case))
    assert "Traceback" not in out + err
    assert tree_digest(root, ignore=()) == before


def test_real_process_prints_no_traceback(capture):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    status, out, err = run_cli("apply", "--yes", "--root", root, "--policy", CASES[0])
    assert status == 2
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("args,message", [
    (["plan", "--only", "memroy"], r"unknown area 'memroy' \(did you mean 'memory'\?\)"),
    (["plan", "--root", "/nonexistent-root"], r"--root /nonexistent-root: no such directory"),
    (["plan", "--frobnicate"], r"unrecognized arguments: --frobnicate"),
    (["revert"], r"which transaction\?"),
    (["apply", "--plan", "/nonexistent.json"], r"/nonexistent.json: no such plan file"),
])
def test_bad_arguments(args, message, cli, capture):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    if "--root" not in args:
        args = args + ["--root", str(root)]
    status, out, err = cli(*args)
    assert status == 2
    assert len(err.strip().splitlines()) == 1, err
    assert re.search(message, err), err


def test_a_rule_has_one_number_in_errors_and_plans(tmp_path, cli):
    """A site policy's first [[block]] comes after the shipped one it extends: the plan calls it block[1],
    so the validation error on it says block[1] too (with the site file's line), and so does an error on
    an entry of a later --policy file."""
    import shutil
    root = tmp_path / "host"
    shutil.copytree(Path(__file__).parent / "data" / "this-vm", root, symlinks=True)
    site = tmp_path / "site.toml"
    rule = '[[block]]\nmatch = { name = "vda" }\nscheduler = %s\n'
    site.write_text('[policy]\nname = "site"\nextends = ["oracle-numa"]\n\n' + rule % '"none"')
    status, out, _ = cli("plan", "--root", root, "--policy", site)
    assert status == 0 and "block[1].scheduler" in out, out
    site.write_text('[policy]\nname = "site"\nextends = ["oracle-numa"]\n\n' + rule % "5")
    status, _, err = cli("plan", "--root", root, "--policy", site)
    assert status == 2 and err.strip() == "numatune: %s:7: block[1].scheduler must be a string, not 5" % site, err
    more = tmp_path / "more.toml"
    more.write_text(rule % "5")
    site.write_text('[policy]\nname = "site"\nextends = ["oracle-numa"]\n\n' + rule % '"none"' + "\n" + rule % '"none"')
    status, _, err = cli("plan", "--root", root, "--policy", site, "--policy", more)
    assert status == 2 and "%s:3: block[3].scheduler" % more in err, err
