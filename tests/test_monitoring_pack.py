"""packaging/monitoring (issue 27): the Prometheus alerting rules pass `promtool check rules` and their own
unit tests (`promtool test rules`), and every query of the Grafana dashboard, run by a real Prometheus
server on 127.0.0.1 loaded with numatune's output from several roots (OK, WARNING, CRITICAL and one that
cannot be checked: `promtool tsdb create-blocks-from openmetrics`), returns the series its panel shows.

promtool and prometheus are Debian's `prometheus` package (.ci/run installs it); without it these skip."""
import datetime
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import REPO

MONITORING = REPO / "packaging" / "monitoring"
DASHBOARD = MONITORING / "numatune-fleet.dashboard.json"
CASES = REPO / "tests" / "cases"
# instance -> the case it checks (statuses as the cases give them today), or None: the check cannot run.
HOSTS = {
    "db-ok1:9100": "sysctl/persisted-by-another-file",
    "db-ok2:9100": "sysctl/unsupported-on-old-kernel",
    "db-warn:9100": "storage/udev-drift",
    "db-crit1:9100": "sysctl/conf-symlink",
    "db-crit2:9100": "boot/cmdline-grub2-legacy",
    "db-unknown:9100": None,
}
DETAIL = "db-crit1:9100"
needs_promtool = pytest.mark.skipif(not shutil.which("promtool"),
                                    reason="promtool (Debian's prometheus package) is not installed")


@needs_promtool
def test_alerting_rules_pass_promtool_and_their_unit_tests():
    for args in (["check", "rules", "numatune.rules.yml"], ["test", "rules", "numatune.rules.test.yml"]):
        proc = subprocess.run(["promtool", *args], cwd=MONITORING, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def test_the_dashboard_names_only_metrics_numatune_writes():
    """Every metric a panel queries is one the prometheus format writes (a rename would blank a panel)."""
    import re
    from numatune.report import prometheus
    source = (REPO / "numatune" / "report" / "prometheus.py").read_text()
    written = set(re.findall(r'"(numatune_[a-z_]+)"', source)) | {prometheus.LAST_CHECK}
    queried = set(re.findall(r"numatune_[a-z_]+", " ".join(t["expr"] for t in _targets())))
    assert queried and queried <= written, queried - written


def _targets(panels=None):
    panels = json.loads(DASHBOARD.read_text())["panels"] if panels is None else panels
    for p in panels:
        yield from (dict(t, panel=p["title"]) for t in p.get("targets", []))
        yield from _targets(p.get("panels", []))


def _reports(cli, tmp_path):
    """Each host's .prom file, written by `check --out` as the timer writes it."""
    from prometheus_client.parser import text_string_to_metric_families
    out = {}
    for instance, case in HOSTS.items():
        prom = tmp_path / (instance.split(":")[0] + ".prom")
        if case is None:
            # Checked once, then its root went away: UNKNOWN keeps the last good check's time.
            good = CASES / "sysctl/persisted-by-another-file"
            cli("check", "--root", good / "root", "--policy", good / "policy.toml", "--format", "prometheus",
                "--out", prom)
            status, _, err = cli("check", "--root", tmp_path / "gone", "--format", "prometheus", "--out", prom)
        else:
            status, _, err = cli("check", "--root", CASES / case / "root", "--policy", CASES / case / "policy.toml",
                                 "--format", "prometheus", "--out", prom)
        out[instance] = (status, list(text_string_to_metric_families(prom.read_text())))
    return out


def _openmetrics(reports, at):
    """All hosts' samples in one OpenMetrics file, each with instance/job (as a textfile scrape adds) and
    the time ``at``: the input `promtool tsdb create-blocks-from openmetrics` reads."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.openmetrics.exposition import generate_latest
    merged = {}
    for instance, (_, families) in reports.items():
        for family in families:
            into = merged.setdefault(family.name, family.__class__(family.name, family.documentation, family.type))
            into.samples += [s._replace(labels=dict(s.labels, instance=instance, job="node"), timestamp=at)
                             for s in family.samples]

    class Merged:
        def collect(self):
            return list(merged.values())
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Merged())
    return generate_latest(registry)


@pytest.fixture
def server(cli, tmp_path):
    if not (shutil.which("promtool") and shutil.which("prometheus")):
        pytest.skip("promtool and prometheus (Debian's prometheus package) are not installed")
    at = int(time.time()) - 3600
    reports = _reports(cli, tmp_path)
    (tmp_path / "fleet.om").write_bytes(_openmetrics(reports, at))
    data = tmp_path / "data"
    proc = subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", str(tmp_path / "fleet.om"),
                           str(data)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (tmp_path / "prometheus.yml").write_text("global:\n  scrape_interval: 1h\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(["prometheus", "--config.file", str(tmp_path / "prometheus.yml"),
                               "--storage.tsdb.path", str(data), "--web.listen-address", "127.0.0.1:%d" % port,
                               "--storage.tsdb.retention.time", "30d"],
                              stdout=subprocess.DEVNULL, stderr=open(tmp_path / "prometheus.log", "w"))
    url = "http://127.0.0.1:%d" % port
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "/-/ready", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "prometheus.log").read_text()
            time.sleep(0.5)

        def query(expr):
            args = urllib.parse.urlencode({"query": expr, "time": at})
            with urllib.request.urlopen("%s/api/v1/query?%s" % (url, args), timeout=30) as r:
                body = json.load(r)
            assert body["status"] == "success", body
            return [(m["metric"], float(m["value"][1])) for m in body["data"]["result"]]
        yield query, reports, at
    finally:
        server.terminate()
        server.wait(timeout=30)


def _expected_rules(reports):
    """From the files themselves: per (check, area), on how many hosts it drifts and how many targets."""
    hosts, targets = {}, {}
    for _, families in reports.values():
        for family in families:
            for s in family.samples:
                if family.name == "numatune_rule_targets" and s.labels["state"] in ("drift", "pending"):
                    key = (s.labels["check"], s.labels["area"])
                    targets[key] = targets.get(key, 0) + s.value
                    hosts[key] = hosts.get(key, 0) + (s.value > 0)
    return ({k: v for k, v in hosts.items() if v}, {k: v for k, v in targets.items()})


def test_every_dashboard_query_returns_what_its_panel_shows(server):
    query, reports, at = server
    statuses = {instance: status for instance, (status, _) in reports.items()}
    assert sorted(statuses.values()) == [0, 0, 1, 2, 2, 3], statuses  # the cases still give the fleet's mix
    on_hosts, targets = _expected_rules(reports)
    detail = {f.name: f.samples for f in reports[DETAIL][1]}
    seen = set()
    for t in _targets():
        expr = t["expr"].replace("$instance", DETAIL)
        got = query(expr)
        key = (t["panel"], t["refId"])
        seen.add(t["panel"])
        assert got, "%s %s: %s returns nothing" % (t["panel"], t["refId"], expr)
        if t["panel"] == "Hosts by status":
            assert len(got) == 1 and got[0][1] == sorted(statuses.values()).count("ABCD".index(t["refId"])), key
        elif t["panel"] == "Hosts":
            want = set(statuses) - ({"db-unknown:9100"} if t["refId"] == "C" else set())
            assert {m["instance"] for m, _ in got} == want, (key, got)
            if t["refId"] == "A":
                assert {m["instance"]: v for m, v in got} == statuses
        elif t["panel"] == "Drifting rules by host count":
            assert {(m["check"], m["area"]): v for m, v in got} == on_hosts
        elif t["panel"] == "Drifting targets by rule, fleet-wide":
            assert {(m["check"], m["area"]): v for m, v in got} == {k: v for k, v in targets.items() if v}
        elif t["panel"] == "Status":
            assert got == [({"__name__": "numatune_check_status", "instance": DETAIL, "job": "node"}, 2.0)]
        elif t["panel"] == "Since the last check":
            checked = detail["numatune_last_check_timestamp_seconds"][0].value
            assert len(got) == 1 and abs(got[0][1] - (at - checked)) < 1
        elif t["panel"] == "Targets without a series of their own":
            assert got[0][1] == detail["numatune_target_series_omitted"][0].value
        elif t["panel"] == "Rules of the host":
            want = {(s.labels["check"], s.labels["area"], s.labels["state"]): s.value
                    for s in detail["numatune_rule_targets"] if s.value > 0}
            assert {(m["check"], m["area"], m["state"]): v for m, v in got} == want
        elif t["panel"] == "Drifting targets of the host":
            want = {(s.labels["rule"], s.labels.get("target")): s.value for s in detail["numatune_rule_severity"]}
            assert {(m["rule"], m.get("target")): v for m, v in got} == want
        else:
            pytest.fail("a panel without an expectation here: %s" % t["panel"])
    assert len(seen) == 9
    # The dashboard's host variable lists every host.
    assert {m["instance"] for m, _ in query("numatune_check_status")} == set(HOSTS)
