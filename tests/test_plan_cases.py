"""Plans as data (pyinfra style): every folder tests/cases/<family>/<case>/
that has a policy.toml holds a root (a small file tree), the policy, a README
saying what the case proves, and expected.json: the plan's changes (id,
current, desired, scope and each write as the plan prints it) and findings
(id, severity), in plan order. One test checks them all, then applies the
plan on a copy, re-plans (must be empty) and reverts (must be
byte-identical). Add a case by adding a folder.

A write's long text (a whole rules file a write puts in place) may stand in
expected.json as ``{"$file": "expected.<name>"}``: the text of that file in
the case folder, compared exactly, and readable as the file it becomes.

expected.json may list ``"compliant"``: {rule, message} entries the plan
must say among its compliant rules (what it says when nothing is needed).

expected.json may say ``"apply_status": 1`` when a critical finding still
stands after apply (the policy is not met): apply exits 1 and names it in
one line on stderr.

expected.json may say ``"roundtrip": false`` with a ``"why"``: for changes
that need the live host (a host tool, a socket, netlink, a database)."""
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import tree_digest

CASES_DIR = Path(__file__).parent / "cases"
# Exactly two levels down: roots below a case hold sysfs-style links that a
# recursive walk must not follow, and cases/bad_policies holds loose files.
CASES = sorted(p.parent for p in CASES_DIR.glob("*/*/policy.toml"))
KEYS = {"changes", "findings", "compliant", "apply_status", "roundtrip", "why"}
CHANGE_KEYS = ("id", "current", "desired", "scope", "writes")
FINDING_KEYS = ("id", "severity")
# Every family has a case; the four whose inline tests were the only record
# of their plans have several.
MINIMUM = {"sysctl": 1, "boot": 1, "hugepages": 1, "storage": 3, "network": 3, "cpuset": 3, "oracle": 3,
           "tuned": 3}


def _case_id(case):
    return "%s/%s" % (case.parent.name, case.name)


def _with_files(value, case):
    if isinstance(value, dict):
        if set(value) == {"$file"}:
            return (case / value["$file"]).read_text()
        return {k: _with_files(v, case) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_files(v, case) for v in value]
    return value


def _expected(case):
    expected = _with_files(json.loads((case / "expected.json").read_text()), case)
    assert set(expected) <= KEYS, "unknown keys in expected.json: %s" % sorted(set(expected) - KEYS)
    for change in expected["changes"]:
        assert sorted(change) == sorted(CHANGE_KEYS), change
    for finding in expected["findings"]:
        assert sorted(finding) == sorted(FINDING_KEYS), finding
    return expected


def _plan(cli, root, policy):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_plan_case(case, tmp_path, cli):
    assert (case / "README").read_text().strip(), "say what the case proves"
    expected = _expected(case)
    root = tmp_path / "root"
    shutil.copytree(case / "root", root, symlinks=True)
    policy = case / "policy.toml"

    plan = _plan(cli, root, policy)
    # Only the listed fields: the plan may grow others (a change's family...).
    got = [{k: c[k] for k in CHANGE_KEYS} for c in plan["changes"]]
    assert got == expected["changes"]
    assert [{k: f[k] for k in FINDING_KEYS} for f in plan["findings"]] == expected["findings"]
    said = [{"rule": c["rule"], "message": c["message"]} for c in plan["compliant"]]
    for entry in expected.get("compliant", []):
        assert entry in said, "%s not among %s" % (entry, said)

    if expected.get("roundtrip", True) is False:
        assert expected.get("why", "").strip(), "say why this case cannot be applied to a copy"
        return
    before = tree_digest(root)
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == expected.get("apply_status", 0), out + err
    unmet = [line for line in err.splitlines() if line.startswith("numatune: the policy is not met: ")]
    assert len(unmet) == (1 if status == 1 else 0), err
    assert _plan(cli, root, policy)["changes"] == []
    if expected["changes"]:
        status, out, err = cli("revert", "--last", "--root", root)
        assert status == 0, out + err
    assert tree_digest(root) == before


def test_every_family_has_cases():
    # A case folder without policy.toml (a typo) would be skipped silently.
    strays = [str(d) for d in CASES_DIR.glob("*/*") if d.is_dir() and d not in CASES]
    assert not strays, "case folders without policy.toml: %s" % strays
    count = {}
    for case in CASES:
        count[case.parent.name] = count.get(case.parent.name, 0) + 1
    short = {f: count.get(f, 0) for f, n in MINIMUM.items() if count.get(f, 0) < n}
    assert not short, "families with too few cases (have): %s" % short


def test_case_roots_hold_only_links_inside_themselves():
    """Roots are copied with their links kept as links: a sysfs-style cycle
    (device -> ..) is fine, a link out of the root or to nothing is not."""
    for case in CASES:
        root = os.path.realpath(str(case / "root"))
        for dirpath, dirnames, filenames in os.walk(root):  # does not follow links
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                if not os.path.islink(path):
                    continue
                assert not os.path.isabs(os.readlink(path)), "%s: absolute link" % path
                target = os.path.realpath(path)
                assert target.startswith(root + os.sep) and os.path.exists(target), \
                    "%s -> %s: outside the root or dangling" % (path, os.readlink(path))
