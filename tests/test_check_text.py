"""`check --format text` groups as the plan does: one entry per policy key
and why, the targets that share a change folded, the why said once; the
JSON (and junit, prometheus, nagios) keep one result per rule."""
import json

from conftest import REPO, install_numatune

CASE = REPO / "tests" / "cases" / "storage" / "san-multipath"


def _check(cli, *extra):
    return cli("check", "--root", CASE / "root", "--policy", CASE / "policy.toml", *extra)


def test_one_why_per_rule_with_the_devices_folded(cli):
    status, text, _ = _check(cli)
    status_json, out, _ = _check(cli, "--format", "json")
    assert status == status_json == 1
    results = json.loads(out)["results"]
    nomerges = [r for r in results if r["policy_key"] == "block[1].nomerges"]
    assert len(nomerges) == 6  # the JSON keeps one result per device
    assert "WARNING   block[1].nomerges (6 rules)" in text
    assert "dm-0..dm-1 queue/nomerges" in text and "sdb-sdc (path of ora_data0)" in text
    assert text.count("why: 3PAR LUNs are SSD-backed") == 1
    assert "why: as for block[1].nomerges" in text  # rotational shares the why: named, not repeated
    assert "block.live:sdb:nomerges" not in text  # no line per device
    assert len(text.splitlines()) < len(results) * 2
    body = text.splitlines()[1:]  # the status line is one line on purpose (the journal, Nagios)
    assert all(len(line) <= 79 for line in body), [line for line in body if len(line) > 79]


def test_a_rule_alone_keeps_its_id_line(cli):
    text = _check(cli)[1]
    assert "INFO      block.multipath-reconfigure\n          after apply, run `multipathd reconfigure`" in text


def test_the_other_formats_are_not_grouped(cli):
    out = _check(cli, "--format", "nagios")[1]
    assert "34 warning" in out
    junit = _check(cli, "--format", "junit")[1]
    assert junit.count("block.live:sd") >= 8


def test_a_big_host_reads_in_pages_not_thousands_of_lines(cli, tmp_path):
    import sys
    sys.path.insert(0, str(REPO / "bench"))
    import bench_policy
    from make_host import make_host
    root = tmp_path / "host"
    make_host(str(root), sockets=4, nodes=4, cpus=32, luns=40, paths=4, nics=4, queues=4, instances=2, procs=150)
    # A host numatune manages has it as a system command (the RPM's /usr/bin/numatune): without one,
    # bootunit.no-runner rightly says every boot-kept value is live only, which is not what this measures.
    install_numatune(root)
    policy = str(tmp_path / "bench.toml")
    bench_policy.build(policy)
    text = cli("check", "--root", root, "--policy", policy)[1]
    results = json.loads(cli("check", "--root", root, "--policy", policy, "--format", "json")[1])["results"]
    drift = [r for r in results if r["state"] != "compliant"]
    assert len(drift) > 500
    assert len(text.splitlines()) < len(drift) / 4, len(text.splitlines())
    assert "sda-" in text


def test_the_lines_one_file_still_needs_fold_into_one(cli):
    """The udev rules a file lacks share its target and (unset): elided to 30
    characters the rule lines read as duplicates, so they are counted, not
    listed (the JSON keeps each)."""
    text = _check(cli)[1]
    results = json.loads(_check(cli, "--format", "json")[1])["results"]
    udev = [r for r in results if r["state"] != "compliant" and "90-numatune.rules: block[0]" in (r["target"] or "")]
    assert len(udev) == 5
    assert text.count("90-numatune.rules: block[0]") == 1
    assert "block[0]: Oracle data LUNs: (unset) -> 5 values (--format json lists each)" in " ".join(text.split())
