"""What the udev rules would keep is worked out once per plan: the rules on
file are matched against the devices only when they are not the wanted ones,
an absent file is matched against nothing, and one plan's answers never
reach the next plan's (another root, another file)."""
import json

from block_fixture import san_host
from conftest import write
from numatune.families.storage import udev_rules, udev_targets
from test_block_persist import POLICY


def _counting(monkeypatch):
    calls = []
    real = udev_targets.effective

    def effective(rules, devices):
        calls.append(len(rules))
        return real(rules, devices)
    monkeypatch.setattr(udev_targets, "effective", effective)
    return calls


def _results(cli, root, policy):
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    return {r["id"]: r for r in json.loads(out)["results"]}


def test_rules_on_file_that_are_the_wanted_ones_are_matched_once(tmp_path, cli, monkeypatch):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err + out
    calls = _counting(monkeypatch)
    results = _results(cli, root, policy)
    assert "persisted by " + udev_rules.PATH in results["block[0]"]["message"]
    assert len(calls) == 1, calls


def test_no_rules_file_is_matched_against_nothing(tmp_path, cli, monkeypatch):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    policy = write(tmp_path, "p.toml", POLICY)
    assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    (root / udev_rules.PATH.lstrip("/")).unlink()
    calls = _counting(monkeypatch)
    results = _results(cli, root, policy)
    assert "persisted for 0 of them" in results["block[0]"]["message"]
    assert calls and 0 not in calls, calls     # only the wanted rules are matched


def test_one_plans_coverage_does_not_reach_the_next(tmp_path, cli):
    kept, bare = tmp_path / "kept", tmp_path / "bare"
    policy = write(tmp_path, "p.toml", POLICY)
    for root in (kept, bare):
        san_host(root, luns=1, paths=2)
        assert cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    (bare / udev_rules.PATH.lstrip("/")).unlink()
    for root, said in ((kept, "persisted by "), (bare, "persisted for 0 of them"), (kept, "persisted by ")):
        assert said in _results(cli, root, policy)["block[0]"]["message"], root


def test_devices_alike_in_settings_but_not_in_schedulers_or_kind_want_their_own():
    from numatune.families.storage.coverage import Coverage

    def dev(name, kind, available, current):
        return {"name": name, "kind": kind, "scheduler": {"available": available, "current": current}}
    devices = {"sda": dev("sda", "scsi", ["mq-deadline", "none"], "none"),
               "sdb": dev("sdb", "scsi", ["bfq", "none"], "none"),
               "sdc": dev("sdc", "scsi", ["mq-deadline", "none"], "none"),
               "dm-0": dev("dm-0", "dm-multipath", ["mq-deadline", "none"], "none")}
    given = {"scheduler": ("deadline", 0), "queue_depth": ("64", 0)}
    missing = Coverage({"devices": devices}, {n: dict(given) for n in devices}).missing([])
    assert missing == {"sda": ["scheduler", "queue_depth"], "sdb": ["queue_depth"],
                       "sdc": ["scheduler", "queue_depth"], "dm-0": ["scheduler"]}
    rule = ([("KERNEL", "==", "sd[ac]")], [("ATTR{queue/scheduler}", "mq-deadline")])
    assert Coverage({"devices": devices}, {n: dict(given) for n in devices}, routed={(0, "queue_depth"): "x"}
                    ).missing([rule]) == {"dm-0": ["scheduler"]}
