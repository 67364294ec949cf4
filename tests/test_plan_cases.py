"""Plans as data (pyinfra style): each folder under tests/cases/plans holds a
root, a policy and the expected changes and findings. One test checks them
all, then applies the plan on a copy, re-plans (must be empty) and reverts
(must be byte-identical). Add a case by adding a folder."""
import json
import shutil
from pathlib import Path

import pytest

from conftest import tree_digest

CASES = sorted(p for p in (Path(__file__).parent / "cases" / "plans").iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_plan_case(case, tmp_path, cli):
    root = tmp_path / "root"
    shutil.copytree(case / "root", root, symlinks=True)
    policy = case / "policy.toml"
    expected = json.loads((case / "expected.json").read_text())
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    got = sorted([c["id"], c["current"], c["desired"]] for c in plan["changes"])
    assert got == sorted(expected["changes"])
    assert sorted(f["id"] for f in plan["findings"]) == sorted(expected["findings"])

    before = tree_digest(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy)
    assert status == 0, out + err
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert json.loads(out)["changes"] == []
    if expected["changes"]:
        status, out, err = cli("revert", "--last", "--root", root)
        assert status == 0, out + err
    assert tree_digest(root) == before
