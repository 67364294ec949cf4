"""`numatune recommend`: for every real capture and every case root, a policy
that `plan --policy` loads, with the sections the host's shape calls for; a
round trip (recommend, plan, apply to a copy, re-plan empty, revert
byte-identical); nothing lowered, nothing refused."""
import json
import shutil
from pathlib import Path

import pytest
import tomlkit

from conftest import CAPTURES, REALDATA, tree_digest, write

CASES_DIR = Path(__file__).parent / "cases"
CASE_ROOTS = sorted(p.parent for p in CASES_DIR.glob("*/*/policy.toml"))


def _case_copy(case, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(case / "root", root, symlinks=True)
    return root


def _recommend(cli, root, tmp_path, *extra):
    out = tmp_path / "recommended.toml"
    status, said, err = cli("recommend", "--root", root, "--out", out, *extra)
    assert status == 0, err
    assert "plan it with: numatune plan --policy %s" % out in said
    return out, out.read_text()


def _plan(cli, root, policy):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return json.loads(out)


def _set(text):
    """The policy as data (what is not commented out)."""
    return tomlkit.parse(text).unwrap()


def _loads_and_is_safe(cli, root, tmp_path):
    path, text = _recommend(cli, root, tmp_path)
    assert "PROBLEM:" not in text
    plan = _plan(cli, root, path)
    refused = {i for f in plan["findings"] for i in f.get("refuses", [])}
    assert not refused & {c["id"] for c in plan["changes"]}
    return text, plan


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_every_capture_gets_a_policy_plan_loads(name, capture, cli, tmp_path):
    root = capture(name)
    text, plan = _loads_and_is_safe(cli, root, tmp_path)
    data = _set(text)
    assert data["policy"]["extends"] == ["oracle-numa"]    # no instance in these captures


@pytest.mark.parametrize("case", CASE_ROOTS, ids=["%s/%s" % (c.parent.name, c.name) for c in CASE_ROOTS])
def test_every_case_root_gets_a_policy_plan_loads(case, cli, tmp_path):
    _loads_and_is_safe(cli, _case_copy(case, tmp_path), tmp_path)


def test_a_one_node_vm_gets_almost_nothing(cli, tmp_path):
    root = tmp_path / "vm"
    shutil.copytree(REALDATA / "this-vm", root, symlinks=True)
    text, _ = _loads_and_is_safe(cli, root, tmp_path)
    assert _set(text) == {"policy": {"name": "site", "description": "numatune recommend for this host: oracle-numa",
                                     "extends": ["oracle-numa"]}}


def test_numa_off_gets_its_removal_with_the_papers_figures(cli, tmp_path):
    root = _case_copy(CASES_DIR / "boot" / "cmdline-grub2-legacy", tmp_path)
    text, plan = _loads_and_is_safe(cli, root, tmp_path)
    assert _set(text)["kernel"]["cmdline"]["absent"] == ["numa=off"]
    assert "numa=off is on the kernel command line" in text
    assert "+27% TPM" in text and "12-15%" in text and "001_211b0b645b2f1cc8.txt" in text
    assert any(c["id"].startswith("cmdline") for c in plan["changes"])


def test_3par_luns_get_their_block_rule_and_other_devices_a_note(cli, tmp_path):
    root = _case_copy(CASES_DIR / "storage" / "san-multipath", tmp_path)
    text, _ = _loads_and_is_safe(cli, root, tmp_path)
    rules = _set(text)["block"]
    assert rules == [{"match": {"vendor": "3PARdata", "model": "VV"}, "scheduler": "deadline",
                      "nr_requests": {"at_least": 1024}, "rotational": 0, "why": rules[0]["why"]}]
    assert "WWN prefix 60002ac0" in text
    # The array-dependent settings are asked, not set; the local RAID controller is named, not tuned.
    assert "#   queue_depth = 128" in text and "QUESTION: Can every array target port" in text
    assert "DELL PERC H730" in text and "nothing is set for it" in text


def test_a_value_the_host_has_higher_is_kept(cli, tmp_path):
    root = _case_copy(CASES_DIR / "storage" / "san-multipath", tmp_path)
    write(root, "/sys/block/dm-0/queue/nr_requests", "4096\n")
    path, text = _recommend(cli, root, tmp_path)
    assert _set(text)["block"][0]["nr_requests"] == {"at_least": 1024}
    assert "stays at the host's higher value (dm-0 4096)" in text
    changes = _plan(cli, root, path)["changes"]
    assert [c for c in changes if c["current"] == "4096" and c["desired"] != "4096"] == []
    # The paper's 1024 is a floor: dm-0 keeps its 4096 (written back after the scheduler switch resets it),
    # the other LUN and the paths rise to 1024, not to 4096.
    queues = {c["target"].split()[0]: c["desired"] for c in changes if c["target"].endswith("/nr_requests")}
    assert queues.pop("dm-0") == "4096" and queues and set(queues.values()) == {"1024"}, queues


def test_instances_get_an_auto_pool_and_their_parameters(cli, tmp_path):
    root = _case_copy(CASES_DIR / "oracle" / "version-aware", tmp_path)
    text, plan = _loads_and_is_safe(cli, root, tmp_path)
    data = _set(text)
    assert data["policy"]["extends"] == ["oracle-hugepages"]
    assert data["hugepages"]["count"] == "auto"
    params = {i["sid"]: i["parameters"] for i in data["oracle"]["instance"]}
    assert params["NEW"] == {"_enable_NUMA_support": True, "use_large_pages": "ONLY"}
    # An unknown release: the parameter that needs one is asked, not written.
    assert params["UNK"] == {"_enable_NUMA_support": True}
    assert "QUESTION: Which release runs UNK?" in text
    # Four instances share every CPU uncaged: caging is asked with the papers' figures.
    assert "QUESTION: How many CPUs may NEW use" in text
    # 000's ~10% is binding + caging against binding alone; caging alone ran at 3.5M against 5.8M bound.
    assert "about 10% behind" not in text
    assert "5.1M" in text and "5.8M" in text and "3.5M" in text


def test_a_pool_a_node_cannot_hold_is_not_made_use_large_pages_only(cli, tmp_path):
    # DW's 12 GiB SGA is bound to node 1, which has 8 GiB: ONLY would keep it from starting.
    root = _case_copy(CASES_DIR / "oracle" / "binding-caging", tmp_path)
    text, _ = _loads_and_is_safe(cli, root, tmp_path)
    assert all("use_large_pages" not in i["parameters"] for i in _set(text)["oracle"]["instance"])
    assert "QUESTION: The pool cannot be had on node(s) 1" in text


def test_the_node_share_agrees_with_the_hugepages_family():
    from numatune.families.hugepages.knob import MAX_SHARE
    from numatune.families.oracle.recommend import NODE_SHARE
    assert NODE_SHARE == MAX_SHARE


@pytest.mark.parametrize("case", ["oracle/version-aware", "storage/san-multipath", "boot/cmdline-grub2-legacy",
                                  "hugepages/shrink-refused", "oracle/caging-binding"])
def test_round_trip(case, cli, tmp_path):
    root = _case_copy(CASES_DIR / case, tmp_path)
    before = tree_digest(root)
    path, _ = _recommend(cli, root, tmp_path)
    assert _plan(cli, root, path)["changes"]
    status, out, err = cli("apply", "--root", root, "--policy", path, "--yes")
    assert status == 0, err + out
    assert _plan(cli, root, path)["changes"] == []
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err
    assert tree_digest(root) == before


def test_round_trip_on_a_real_capture(capture, cli, tmp_path):
    root = capture("32amd64-4s2n4c-cgroup2")
    before = tree_digest(root)
    path, _ = _recommend(cli, root, tmp_path)
    status, out, err = cli("apply", "--root", root, "--policy", path, "--yes")
    assert status == 0, err + out
    assert _plan(cli, root, path)["changes"] == []
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before


def test_json_names_each_entry_source_and_question(cli, tmp_path):
    root = _case_copy(CASES_DIR / "oracle" / "version-aware", tmp_path)
    status, out, err = cli("recommend", "--root", root, "--format", "json")
    assert status == 0, err
    doc = json.loads(out)
    assert doc["extends"] == ["oracle-hugepages"] and doc["problems"] == []
    asked = [e for e in doc["entries"] if e.get("question")]
    assert asked and all(e["source"] for e in asked)
    assert doc["policy"]["hugepages"] == {"count": "auto", "keep_larger": True}


def test_stdout_is_the_policy(cli, tmp_path):
    root = _case_copy(CASES_DIR / "oracle" / "version-aware", tmp_path)
    status, out, err = cli("recommend", "--root", root)
    assert status == 0, err
    assert out.startswith("# Written by `numatune recommend`") and _set(out)["hugepages"]["count"] == "auto"


def test_bad_root_is_one_line_and_exit_2(cli, tmp_path):
    status, out, err = cli("recommend", "--root", tmp_path / "nowhere")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "no such directory" in err


def test_the_at_least_helper_keeps_higher_host_values_per_field():
    from numatune.families.sysctl.recommend import at_least
    assert at_least("net.core.rmem_max", 4194304, "16777216") is None
    assert at_least("net.core.rmem_max", 4194304, "262144") == {"at_least": 4194304}
    assert at_least("net.ipv4.tcp_rmem", "4096 87380 16777216", "4096 131072 33554432") is None
    assert at_least("net.ipv4.tcp_rmem", "4096 87380 16777216", "4096 87380 6291456") == {
        "at_least": "4096 87380 16777216"}


def test_review_recommend_opens_on_the_recommended_policy(cli, tmp_path, monkeypatch):
    pytest.importorskip("textual")
    import numatune_tui
    root = _case_copy(CASES_DIR / "oracle" / "version-aware", tmp_path)
    seen = {}

    def fake_run(root_, policy, only=None, skip=None):
        seen["data"] = policy.data
        return 0
    monkeypatch.setattr(numatune_tui, "run", fake_run)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    status, out, err = cli("review", "--recommend", "--root", root)
    assert status == 0, err
    assert seen["data"]["hugepages"]["count"] == "auto"
    assert seen["data"]["oracle"]["instance"][0]["parameters"]["use_large_pages"] == "ONLY"
    assert "numatune recommend --root %s --out /etc/numatune/policy.toml" % root in out


def test_socket_buffers_are_minimums_and_never_lowered(cli, tmp_path):
    root = _case_copy(CASES_DIR / "oracle" / "version-aware", tmp_path)
    write(root, "/proc/sys/net/core/rmem_max", "212992\n")
    write(root, "/proc/sys/net/core/wmem_max", "33554432\n")
    write(root, "/proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n")
    path, text = _recommend(cli, root, tmp_path)
    sysctl = _set(text)["sysctl"]
    assert sysctl["net.core.rmem_max"]["at_least"] == 16777216
    assert "net.core.wmem_max" not in sysctl      # the host's 32 MiB is above the paper's 16 MiB
    assert sysctl["net.ipv4.tcp_rmem"]["at_least"] == "4096 87380 16777216"
    desired = {c["target"]: c["desired"] for c in _plan(cli, root, path)["changes"] if c["scope"] == "live"}
    # Per field: the host's higher default (131072) stays, the ceiling rises to the paper's.
    assert desired["net.ipv4.tcp_rmem"].split() == ["4096", "131072", "16777216"]
    assert "net.core.wmem_max" not in desired


def test_a_bond_and_nics_are_asked_about_never_set(cli, tmp_path):
    root = _case_copy(CASES_DIR / "network" / "bond-up", tmp_path)
    text, _ = _loads_and_is_safe(cli, root, tmp_path)
    data = _set(text)
    assert "bond" not in data and "net" not in data           # switch-dependent: commented, with the reason
    assert "QUESTION: Does bond0 serve Oracle, and is its switch side an LACP port channel" in text
    assert '#   xmit_hash_policy = "layer3+4"' in text
    assert 'match = {name = "eth2"}' not in text          # a slave follows its bond


def test_a_rac_instance_is_told_what_parallel_instance_group_needs(cli, tmp_path):
    root = _case_copy(CASES_DIR / "oracle" / "rac-services", tmp_path)
    text, _ = _loads_and_is_safe(cli, root, tmp_path)
    assert "RAC instance(s) orcl1" in text and "000_bee41b021388c063.txt" in text


@pytest.mark.parametrize("case", ["oracle/version-aware", "storage/san-multipath", "network/bond-up",
                                  "oracle/listeners-per-node", "oracle/binding-caging", "cpuset/remote-memory"])
def test_every_asked_entry_uncommented_is_a_policy_plan_loads(case, cli, tmp_path):
    root = _case_copy(CASES_DIR / case, tmp_path)
    _, text = _recommend(cli, root, tmp_path)
    answered = tmp_path / "answered.toml"
    answered.write_text("\n".join(line[4:] if line.startswith("#   ") else line for line in text.splitlines()))
    status, out, err = cli("plan", "--root", root, "--policy", answered, "--format", "json")
    assert status == 0, err


def test_an_asked_key_of_a_written_table_is_written_alone(capture, cli, tmp_path):
    root = capture("x86_64-64cpu")      # bare metal, ondemand, intel_idle
    _, text = _recommend(cli, root, tmp_path)
    assert _set(text)["cpu"] == {"governor": "performance"}
    assert "#   max_cstate = 1" in text and "#   [cpu]" not in text


def test_a_guest_gets_no_governor(capture, cli, tmp_path):
    root = capture("x86_64-64cpu")
    cpuinfo = root / "proc" / "cpuinfo"
    cpuinfo.write_text(cpuinfo.read_text().replace("flags\t\t: ", "flags\t\t: hypervisor "))
    _, text = _recommend(cli, root, tmp_path)
    assert "cpu" not in _set(text) and "A hypervisor runs this kernel" in text


def test_an_amm_instance_is_asked_to_leave_amm_with_the_figures(cli, tmp_path):
    # ORCL runs AMM (memory_target = 1G): no SGA to size, so the AMM question is asked with its figures.
    root = _case_copy(CASES_DIR / "oracle" / "pfile-amm-hugepages", tmp_path)
    text, _ = _loads_and_is_safe(cli, root, tmp_path)
    assert "No instance's SGA could be sized" not in text
    assert "QUESTION: ORCL runs AMM (memory_target = 1G)" in text
    # Oracle's 60/40 split of 1G: sga_target 614M, pga_aggregate_target 410M.
    assert "sga_target 614M and pga_aggregate_target 410M" in text
    assert "#   parameters = {memory_target = 0}" in text
    assert "+13% TPM" in text


def test_an_amm_instance_beside_sized_ones_is_asked_too(cli, tmp_path):
    # OLD moves to AMM (memory_target = 4G) while the others keep their SGAs: the pool is recommended for
    # them and OLD is asked to leave AMM (60/40 of 4G: 2457M SGA, 1639M PGA).
    root = _case_copy(CASES_DIR / "oracle" / "version-aware", tmp_path)
    write(root, "/u01/app/oracle/product/11.2.0/dbhome_1/dbs/initOLD.ora", "*.db_name='OLD'\n*.memory_target=4G\n")
    text, _ = _loads_and_is_safe(cli, root, tmp_path)
    assert _set(text)["hugepages"]["count"] == "auto"
    flat = " ".join(line[2:] for line in text.splitlines() if line.startswith("# "))   # unwrapped comments
    assert "QUESTION: OLD runs AMM (memory_target = 4G)" in flat
    assert "sga_target 2457M and pga_aggregate_target 1639M" in flat
    assert "the pool's count = \"auto\" then sizes it" in flat
