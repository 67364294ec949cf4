"""Families are imported only when a policy uses them (issue #18, cheap
start), and that changes no plan:

- a sysctl-only `check` imports the sysctl, boot and tuned families and no
  storage, network, Oracle, cpuset or cpu code (a fresh interpreter reports
  its sys.modules);
- every case under tests/cases and every shipped policy plans exactly the
  same with the families the policy selects as with every family planning;
- the registry's declared table says what each record declares (tables,
  editors, write kinds), so selection and journal lookups cannot miss one;
- a journal record finds its editor and write kind by name, importing only
  the family that owns it.
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

CASES = sorted(p.parent for p in (Path(__file__).parent / "cases").glob("*/*/policy.toml"))
BAD = sorted((Path(__file__).parent / "cases" / "bad_policies").glob("*.toml"))
SHIPPED = sorted((REPO / "policies").glob("*.toml"))

PROBE = """
import json, os, sys
from numatune.cli import main
try:
    status = main(json.loads(sys.argv[1]))
except SystemExit as e:
    status = e.code
with open(os.environ["PROBE_OUT"], "w") as f:
    json.dump({"status": status, "modules": sorted(sys.modules)}, f)
"""


def _probe(tmp_path, args):
    out = tmp_path / "probe.json"
    env = dict(os.environ, PROBE_OUT=str(out), PYTHONPATH=str(REPO), NO_COLOR="1")
    subprocess.run([sys.executable, "-c", PROBE, json.dumps([str(a) for a in args])], env=env, cwd=str(tmp_path),
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, timeout=120)
    return json.loads(out.read_text())


def _sysctl_root(tmp_path):
    root = tmp_path / "root"
    for key, value in (("vm/swappiness", "60"), ("kernel/numa_balancing", "1"), ("vm/dirty_ratio", "20")):
        (root / "proc/sys" / key).parent.mkdir(parents=True, exist_ok=True)
        (root / "proc/sys" / key).write_text(value + "\n")
    policy = tmp_path / "p.toml"
    policy.write_text('[sysctl]\n"vm.swappiness" = 10\n"kernel.numa_balancing" = 0\n"vm.dirty_ratio" = 15\n')
    return root, policy


@pytest.mark.parametrize("command", ["check", "plan"])
def test_a_sysctl_only_policy_imports_only_the_families_it_needs(tmp_path, command):
    root, policy = _sysctl_root(tmp_path)
    seen = _probe(tmp_path, [command, "--root", root, "--policy", policy])
    assert seen["status"] in (1, 2) if command == "check" else seen["status"] == 0, seen["status"]
    families = {m.split(".")[2] for m in seen["modules"] if m.startswith("numatune.families.")} - {"registry"}
    assert families == {"sysctl", "boot", "bootunit", "tuned"}
    # Nor the write path: plan and check never write.
    assert not [m for m in seen["modules"] if m.startswith("numatune.apply.") and m not in ("numatune.apply.journal", "numatune.apply.state_dir", "numatune.apply.outstreams")]
    # Nor libraries only other paths need (netlink, databases, the TUI, --output's temp files).
    # ctypes is not among them: reads under --root go through openat2(RESOLVE_IN_ROOT).
    assert not [m for m in seen["modules"] if m.split(".")[0] in ("pyroute2", "oracledb", "textual",
                                                                   "platform", "tempfile")]


def test_a_sysctl_check_of_the_live_root_does_not_import_ctypes(tmp_path):
    """ctypes (openat2, the journal's fallocate) is loaded only where it is
    used: under --root, or to write. A small live check is mostly imports."""
    _, policy = _sysctl_root(tmp_path)
    seen = _probe(tmp_path, ["check", "--policy", policy])
    assert seen["status"] in (0, 1, 2) and "ctypes" not in seen["modules"]
    assert "numatune.families.sysctl" in seen["modules"]


def test_a_sysctl_check_imports_no_dataclasses_nor_what_facts_and_recommend_print(tmp_path):
    """A check of three sysctls races `tuned-adm verify` (issue #38): it builds its
    records without dataclasses (inspect, ast, dis, tokenize: a fifth of its start),
    and loads no family's text for `numatune facts`, recommend or `facts --format policy`."""
    _, policy = _sysctl_root(tmp_path)
    seen = _probe(tmp_path, ["check", "--policy", policy])
    assert seen["status"] in (0, 1, 2)
    assert [m for m in ("dataclasses", "inspect", "ast", "dis", "tokenize") if m in seen["modules"]] == []
    assert [m for m in seen["modules"] if m.startswith("numatune.families.")
            and m.rsplit(".", 1)[1] in ("facts_text", "recommend", "as_policy")] == []
    # Nor what only other runs use: -t's alarm, -w/-c, a JSON output, a printed command.
    assert [m for m in ("signal", "shlex", "numatune.report.thresholds", "numatune.report.jsonout")
            if m in seen["modules"]] == []


def test_a_plan_of_every_family_imports_nothing_only_facts_and_recommend_print(small_host, tmp_path):
    """The bench policy selects every family (issue #38): its plan still loads no family's
    text for `numatune facts`, recommend or `facts --format policy`, nor the helpers only those use."""
    seen = _probe(tmp_path, ["plan", "--root", small_host / "root", "--policy", small_host / "bench.toml"])
    families = {m.split(".")[2] for m in seen["modules"] if m.startswith("numatune.families.")} - {"registry"}
    assert seen["status"] == 0 and {"network", "storage", "cpu", "cpuset", "oracle", "advice"} <= families
    assert [m for m in seen["modules"] if m.startswith("numatune.families.")
            and m.rsplit(".", 1)[1] in ("facts_text", "recommend", "as_policy")] == []
    # Nor the families' own kinds of write (a plan writes nothing), nor the value writes under them.
    assert [m for m in seen["modules"] if m.startswith("numatune.families.") and m.rsplit(".", 1)[1] in (
        "netdev", "blockattr", "multipath_write", "sql_write", "cgroup_write")
        or m in ("numatune.apply.value", "numatune.apply.root_write")] == []
    # Nor what reads the facts again after apply's writes, nor the facts' line layout.
    assert [m for m in seen["modules"] if m.endswith(".reread") or m == "numatune.report.factlines"] == []
    # Nor the SQL of a live instance (under --root no instance is queried), shlex for ifcfg values that
    # need no shell parsing, nor copy and weakref for the boot family's record turned into facts.
    assert [m for m in ("numatune.families.oracle.sql", "copy", "weakref", "shlex") if m in seen["modules"]] == []


def test_a_policy_with_a_block_table_imports_storage_and_not_oracle(tmp_path):
    root, policy = _sysctl_root(tmp_path)
    policy.write_text(policy.read_text() + '[[block]]\nmatch = { name = "sd*" }\nscheduler = "none"\n')
    seen = _probe(tmp_path, ["plan", "--root", root, "--policy", policy])
    families = {m.split(".")[2] for m in seen["modules"] if m.startswith("numatune.families.")} - {"registry"}
    assert seen["status"] == 0 and families == {"sysctl", "boot", "bootunit", "tuned", "storage"}


def _plan_json(root, refs, every):
    """The plan as JSON with the families the policy selects, or (``every``) with all of them planning."""
    from numatune import engine
    from numatune.families import registry
    from numatune.root import Root
    saved = registry.DECLARED
    if every:
        registry.DECLARED = tuple(d._replace(always=True) for d in saved)
    try:
        r = Root(str(root))
        policy = engine.load_policy(refs, r)
        plan, _ = engine.make_plan(r, policy)
        return json.loads(json.dumps(plan.to_json(), default=str))
    finally:
        registry.DECLARED = saved


@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s/%s" % (c.parent.name, c.name))
def test_the_selected_families_plan_what_every_family_plans(case):
    refs = [str(case / "policy.toml")]
    selected = _plan_json(case / "root", refs, every=False)
    assert selected == _plan_json(case / "root", refs, every=True)


@pytest.mark.parametrize("policy", SHIPPED, ids=lambda p: p.stem)
@pytest.mark.parametrize("case", [c for c in CASES if c.parent.name in ("oracle", "cpuset", "network")][:3],
                         ids=lambda c: "%s/%s" % (c.parent.name, c.name))
def test_shipped_policies_plan_the_same_either_way(case, policy):
    assert _plan_json(case / "root", [str(policy)], False) == _plan_json(case / "root", [str(policy)], True)


def test_the_declared_table_matches_every_record():
    from numatune.families import registry
    for spec, family in zip(registry.DECLARED, registry.FAMILIES):
        assert spec.name == family.name
        assert set(spec.tables) == set(family.policy), family.name
        assert set(spec.editors) == set(family.editors), family.name
        assert set(spec.write_kinds) == set(family.write_kinds), family.name
        for dep in spec.needs + family.resolve_after:
            assert dep in registry.BY_NAME
    assert sorted(registry.EDITORS) == sorted(e for f in registry.FAMILIES for e in f.editors)


def test_a_journal_record_imports_only_the_family_of_its_kind_and_editor(tmp_path):
    code = ("import sys; from numatune.apply import kinds, file; kinds.for_op({'kind': 'blockattr'}); "
            "file.EDITORS['tuned_line']; "
            "print(sorted({m.split('.')[2] for m in sys.modules if m.startswith('numatune.families.')}))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(REPO)),
                         capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.strip() == "['registry', 'storage', 'tuned']"


def test_an_unknown_table_is_still_named_with_every_known_one(tmp_path, cli):
    policy = tmp_path / "p.toml"
    policy.write_text("[hugepage]\ncount = 1\n")
    status, out, err = cli("plan", "--root", tmp_path, "--policy", policy)
    assert status == 2 and "did you mean 'hugepages'" in out + err


@pytest.fixture(scope="module")
def small_host(tmp_path_factory):
    """A small bench host: tuned with a profile, bootloader, SAN paths, NICs, an Oracle instance."""
    sys.path.insert(0, str(REPO / "bench"))
    import bench_policy
    from make_host import make_host
    base = tmp_path_factory.mktemp("host")
    make_host(str(base / "root"), sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=2, queues=2, instances=1,
              procs=80)
    bench_policy.build(str(base / "bench.toml"))
    return base


@pytest.mark.parametrize("policy", ["bench.toml"] + [p.name for p in SHIPPED])
def test_a_bench_host_plans_the_same_either_way(small_host, policy):
    ref = str(small_host / policy) if policy == "bench.toml" else str(REPO / "policies" / policy)
    selected = _plan_json(small_host / "root", [ref], every=False)
    assert selected == _plan_json(small_host / "root", [ref], every=True)
    assert selected["changes"] or selected["findings"], "the host must give this test something to compare"


def test_a_sysctl_only_policy_still_gets_the_tuned_profile_conflicts(small_host, tmp_path):
    policy = tmp_path / "p.toml"
    policy.write_text('[sysctl]\n"vm.swappiness" = 1\n"kernel.numa_balancing" = 1\n"vm.dirty_ratio" = 15\n')
    selected = _plan_json(small_host / "root", [str(policy)], every=False)
    assert selected == _plan_json(small_host / "root", [str(policy)], every=True)
    assert any(f["id"].startswith("tuned.") for f in selected["findings"]), selected["findings"]


def test_cpu_topology_and_c_states_are_read_once_per_run(small_host, tmp_path, monkeypatch):
    """The cpu and tuned families and the host summary all ask for the CPUs
    and their C-states: each file is read once per gather, and anew by the next."""
    from collections import Counter

    from numatune import engine
    from numatune.root import Root
    policy = tmp_path / "p.toml"
    policy.write_text('[sysctl]\n"vm.swappiness" = 1\n[cpu]\nmax_cstate = 1\n')
    reads = Counter()
    real, real_many = Root.read_text, Root.read_texts

    def read_text(self, path, default=None):
        reads[path] += 1
        return real(self, path, default)

    def read_texts(self, directory, names):
        # A directory's files read together count as one read each (a link among them is
        # read again by read_text: that is not a second read of its contents).
        for name in names:
            reads[directory.rstrip("/") + "/" + name] += 1
        with monkeypatch.context() as m:
            m.setattr(Root, "read_text", real)
            return real_many(self, directory, names)
    real_under = Root.read_values_under

    def read_values_under(self, directory, match, names):
        # Each entry's files read in the listed directory (a CPU's C-states): one read each.
        with monkeypatch.context() as m:
            m.setattr(Root, "read_text", real)
            m.setattr(Root, "read_texts", real_many)
            got = real_under(self, directory, match, names)
        for entry in got:
            for name in names:
                reads[directory.rstrip("/") + "/" + entry + "/" + name] += 1
        return got
    monkeypatch.setattr(Root, "read_text", read_text)
    monkeypatch.setattr(Root, "read_texts", read_texts)
    monkeypatch.setattr(Root, "read_values_under", read_values_under)
    root = Root(str(small_host / "root"))
    loaded = engine.load_policy([str(policy)], root)
    facts = engine.gather(root, loaded.data)
    cpu_files = {p: n for p, n in reads.items() if p.startswith("/sys/devices/system/cpu/cpu")}
    assert any("/cpuidle/state" in p for p in cpu_files) and any("/topology/" in p for p in cpu_files)
    assert max(cpu_files.values()) == 1, [p for p, n in cpu_files.items() if n > 1][:5]
    # Each family got its own copy.
    facts["cpu"]["cpuidle"]["cpus"].clear()
    assert engine.gather(root, loaded.data)["cpu"]["cpuidle"]["cpus"]
    assert max(reads[p] for p in cpu_files) == 2


def _refusal(root, ref, every):
    from numatune import engine
    from numatune.errors import NumatuneError
    from numatune.families import registry
    from numatune.root import Root
    saved = registry.DECLARED
    if every:
        registry.DECLARED = tuple(d._replace(always=True) for d in saved)
    try:
        r = Root(str(root))
        engine.make_plan(r, engine.load_policy([ref], r))
        return None
    except NumatuneError as e:
        return str(e)
    finally:
        registry.DECLARED = saved


# A policy whose refusal comes from a family other than the table's own:
# [hugepages] count = "auto" with an instance the oracle check refuses.
AUTO_BAD_INSTANCE = '[hugepages]\ncount = "auto"\n[[oracle.instance]]\nparameters = { sga_target = "1G" }\n'


@pytest.mark.parametrize("bad", BAD + ["hugepages-auto-bad-instance"], ids=lambda p: getattr(p, "stem", p))
def test_a_bad_policy_is_refused_the_same_either_way(bad, small_host, tmp_path):
    """Cross-table checks (oracle's check of [[oracle.instance]] under count = "auto") run with the families
    selected too."""
    if bad == "hugepages-auto-bad-instance":
        bad = tmp_path / "auto.toml"
        bad.write_text(AUTO_BAD_INSTANCE)
    said = _refusal(small_host / "root", str(bad), every=False)
    assert said is not None and said == _refusal(small_host / "root", str(bad), every=True)


@pytest.mark.parametrize("oratab", ["found", "empty"])
def test_auto_alone_plans_the_same_either_way(small_host, tmp_path, oratab):
    """count = "auto" needs no [[oracle.instance]] (issue #13): the instances come from /etc/oratab, and
    with none there a warning says so and the pool is left alone -- with the selected families as with all."""
    policy = tmp_path / "auto.toml"
    policy.write_text('[hugepages]\ncount = "auto"\n')
    root = small_host / "root"
    if oratab == "empty":
        root = tmp_path / "root"
        shutil.copytree(str(small_host / "root"), str(root), symlinks=True)
        (root / "etc/oratab").write_text("# no databases here\n")
    assert _refusal(root, str(policy), every=False) is None
    selected = _plan_json(root, [str(policy)], every=False)
    assert selected == _plan_json(root, [str(policy)], every=True)
    ids = [f["id"] for f in selected["findings"]]
    assert ("hugepages.auto-no-instances" in ids) == (oratab == "empty"), ids


# What starts before any command runs (issue #38): scripts and inventories ask for the version many
# times over, and a typo or --help should answer at once.
NO_COMMAND = [["--version"], ["--help"], ["plna"], ["--bogus"], [], ["--version", "plan"]]


@pytest.mark.parametrize("args", NO_COMMAND, ids=lambda a: " ".join(a) or "nothing")
def test_no_command_imports_no_family_nor_their_registry(tmp_path, args):
    seen = _probe(tmp_path, args)
    assert seen["status"] in (0, 2), seen["status"]
    loaded = [m for m in seen["modules"] if m.startswith(("numatune.families", "numatune.family", "numatune.model"))
              or m in ("dataclasses", "inspect", "typing")]
    assert loaded == []


def test_version_imports_no_parser(tmp_path):
    seen = _probe(tmp_path, ["--version"])
    ours = [m for m in seen["modules"] if m.split(".")[0] == "numatune"]
    assert seen["status"] == 0 and "argparse" not in seen["modules"], ours
    assert set(ours) <= {"numatune", "numatune.cli", "numatune.errors", "numatune.apply", "numatune.apply.outstreams"}


@pytest.mark.parametrize("args", [["plan", "--help"], ["check", "--help"], ["plan", "--bogus"], ["apply", "-h"]])
def test_a_command_s_help_or_bad_flag_imports_no_family(tmp_path, args):
    seen = _probe(tmp_path, args)
    assert seen["status"] in (0, 2, 3), seen["status"]
    assert [m for m in seen["modules"] if m.startswith("numatune.families.") and m != "numatune.families.registry"] \
        == []
    assert "dataclasses" not in seen["modules"]
