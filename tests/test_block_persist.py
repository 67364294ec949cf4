"""[[block]] settings kept by udev rules written from the policy's
selectors: a LUN added after apply gets them (its map and every path), a
LUN of another array does not, the map's RUN program really sets its paths
(run by /bin/sh on a sysfs-shaped tree), a scheduler is never assigned
where it is not offered, overlapping rules write no line twice, and
`check` says "persisted" only while a rule covers the device."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from block_fixture import BLK_MQ, disk_name, multipath_map, san_host, scsi_disk
from conftest import write
from numatune.families.storage import udev_rules, udev_targets
from numatune.families.storage import facts as facts_block
from numatune.root import Root

POLICY = """
[[block]]
match = { kind = "dm-multipath", dm_name = "ora_*" }
scheduler = "deadline"
nr_requests = 1024
queue_depth = 64
why = "Oracle data LUNs"

[[block]]
match = { vendor = "3PARdata", model = "VV" }
rotational = 0
nomerges = 1
why = "3PAR LUNs are SSD-backed"
"""
PATH_WANT = {"ATTR{queue/scheduler}": "mq-deadline", "ATTR{queue/nr_requests}": "1024",
             "ATTR{device/queue_depth}": "64", "ATTR{queue/rotational}": "0", "ATTR{queue/nomerges}": "1"}
MAP_WANT = {"ATTR{queue/scheduler}": "mq-deadline", "ATTR{queue/nr_requests}": "1024",
            "ATTR{queue/rotational}": "0", "ATTR{queue/nomerges}": "1"}


def _add_lun(root, index, wwid, first_path, dm_name, vendor="3PARdata", model="VV"):
    """A LUN zoned in after apply: two new paths and a new map."""
    paths = []
    for k in range(2):
        name = disk_name(first_path + k)
        scsi_disk(root, name, 16 * (first_path + k), host=3 + k, lun=index, vendor=vendor, model=model,
                  wwid="naa." + wwid[1:], pci="0000:8%d:00.0" % k, numa_node=2, udev={
                      "ID_VENDOR": vendor, "ID_MODEL": model, "ID_SERIAL": wwid,
                      "ID_WWN_WITH_EXTENSION": "0x" + wwid[1:], "DM_MULTIPATH_DEVICE_PATH": "1"})
        paths.append(name)
    multipath_map(root, index, dm_name, wwid, paths)
    return paths


def _apply(cli, root, policy):
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err + out
    return udev_rules.parse((root / udev_rules.PATH.lstrip("/")).read_text())


def test_a_lun_added_after_apply_gets_the_settings_and_another_array_does_not(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=2, paths=2)
    rules = _apply(cli, root, write(tmp_path, "p.toml", POLICY))
    text = (root / udev_rules.PATH.lstrip("/")).read_text()
    assert "360002ac000000000000000000019f0f" not in text  # no LUN pinned by its serial
    new = _add_lun(root, 2, "360002ac000000000000000200019f0f", 5, "ora_data2")
    netapp = _add_lun(root, 3, "3600a098038303053453f463045726b77", 7, "ora_redo0", vendor="NETAPP",
                      model="LUN C-Mode")
    other = _add_lun(root, 4, "3600a098038303053453f463045726b78", 9, "backup0", vendor="NETAPP", model="LUN C-Mode")
    devices = facts_block.discover_sysfs(Root(str(root)))
    got = udev_targets.effective(rules, devices)
    assert got["dm-2"] == MAP_WANT and all(got[p] == PATH_WANT for p in new)
    # ora_redo0 is an "ora_*" map of another array: block[0] only, through its name.
    assert got["dm-3"] == {k: MAP_WANT[k] for k in ("ATTR{queue/scheduler}", "ATTR{queue/nr_requests}")}
    assert all(got[p] == {"ATTR{queue/scheduler}": "mq-deadline", "ATTR{queue/nr_requests}": "1024",
                          "ATTR{device/queue_depth}": "64"} for p in netapp)
    assert got["dm-4"] == {} and all(got[p] == {} for p in other) and got["sda"] == {}


def _run_for_map(root, map_dir, program):
    """What udev runs for the map's event: $devpath is the map's sysfs path
    without /sys, "$$" is a "$"; here /sys is the test tree's."""
    devpath = "/" + os.path.relpath(map_dir, root / "sys")
    script = program.replace("/sys$devpath", str(root / "sys") + devpath).replace("$$", "$")
    argv = ["/bin/sh", "-c", script.split("'")[1]]
    assert script.startswith("/bin/sh -c '") and script.endswith("'")
    subprocess.run(argv, check=True, timeout=30)


def test_the_map_program_sets_every_path_under_it(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    for p in ("sdb", "sdc"):  # paths that do not run mq-deadline yet
        (Path(os.path.realpath(root / "sys/block" / p)) / "queue/scheduler").write_text("mq-deadline kyber [none]\n")
    rules = _apply(cli, root, write(tmp_path, "p.toml", POLICY))
    for p in ("sdb", "sdc"):  # undo what apply set live, so only the programs can set it again
        real = Path(os.path.realpath(root / "sys/block" / p))
        (real / "queue/scheduler").write_text("mq-deadline kyber [none]\n")
        (real / "queue/nr_requests").write_text("256\n")
        (real / "device/queue_depth").write_text("32\n")
    runs = [a[0][1] for k, a in rules if a[0][0] == "RUN"]
    assert len(runs) == 3  # scheduler, nr_requests, queue_depth of block[0] (dm_name: invisible on a path)
    map_dir = os.path.realpath(root / "sys/block/dm-0")
    for program in runs:
        _run_for_map(root, map_dir, program)
    for p in ("sdb", "sdc"):
        real = Path(os.path.realpath(root / "sys/block" / p))
        assert (real / "queue/scheduler").read_text() == "mq-deadline\n"
        assert (real / "queue/nr_requests").read_text() == "1024\n"
        assert (real / "device/queue_depth").read_text() == "64\n"


@pytest.mark.parametrize("text,offered", [
    ("noop deadline [cfq]", "deadline"), ("[mq-deadline] kyber none", "mq-deadline"),
    ("mq-deadline", "mq-deadline"), ("none [kyber] bfq", None), ("[none]", None)])
def test_a_scheduler_rule_fires_only_where_the_device_offers_it(text, offered):
    current, available = facts_block.parse_scheduler(text)
    dev = {"name": "sdb", "udev": {}, "attrs": {}, "scheduler": {"current": current, "available": available}}
    hits = [name for keys, name in udev_targets.scheduler_keys(["mq-deadline", "deadline"])
            if udev_rules.matches(keys, dev)]
    assert hits == ([offered] if offered else [])


def test_mixed_devices_get_only_what_each_offers(tmp_path, cli):
    root = tmp_path / "root"
    scsi_disk(root, "sdb", 16, vendor="LSI", model="X", scheduler="noop deadline [cfq]", udev={"ID_VENDOR": "LSI"})
    scsi_disk(root, "sdc", 32, vendor="LSI", model="X", scheduler=BLK_MQ, udev={"ID_VENDOR": "LSI"})
    scsi_disk(root, "sdd", 48, vendor="LSI", model="X", scheduler="[none]", udev={"ID_VENDOR": "LSI"})
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { vendor = "LSI" }\nscheduler = "deadline"\n')
    rules = _apply(cli, root, policy)
    devices = facts_block.discover_sysfs(Root(str(root)))
    got = udev_targets.effective(rules, devices)
    assert got["sdb"] == {"ATTR{queue/scheduler}": "deadline"}
    assert got["sdc"] == {"ATTR{queue/scheduler}": "mq-deadline"}
    assert got["sdd"] == {}


def test_overlapping_selectors_write_no_line_twice(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=2, paths=2)
    policy = write(tmp_path, "p.toml", POLICY + '\n[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\n'
                                              'nomerges = 1\nrotational = 0\n')
    _apply(cli, root, policy)
    lines = [l for l in (root / udev_rules.PATH.lstrip("/")).read_text().splitlines() if l and l[0] != "#"]
    assert len(lines) == len(set(lines))
    assert sum("queue/nomerges" in l for l in lines) == 2  # once for the paths, once for the maps


def _check(cli, root, policy):
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    return {r["id"]: r for r in json.loads(out)["results"]}


def test_check_says_persisted_only_while_a_rule_covers_the_device(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    policy = write(tmp_path, "p.toml", POLICY)
    _apply(cli, root, policy)
    results = _check(cli, root, policy)
    assert "persisted by " + udev_rules.PATH in results["block[0]"]["message"]
    (root / udev_rules.PATH.lstrip("/")).unlink()
    results = _check(cli, root, policy)
    assert results["block[0]"]["state"] == "compliant"  # live values are right ...
    assert "persisted by" not in results["block[0]"]["message"]  # ... but nothing keeps them
    assert "persisted for 0 of them" in results["block[0]"]["message"]
    assert any(r["id"].startswith("block.udev:") and r["state"] == "drift" for r in results.values())


def test_a_device_udev_cannot_see_as_the_policy_does_is_said_to_stay_live_only(tmp_path, cli):
    # No udev database in this capture: the WWN comes from sysfs alone, so
    # no rule on ID_WWN_WITH_EXTENSION can be shown to select the disk.
    root = tmp_path / "root"
    scsi_disk(root, "sdb", 16, wwid="naa.60002ac0000000000000000a00019f0f", udev=None)
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { wwn = "60002ac0000000000000000a00019f0f" }\n'
                                       'nomerges = 1\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    found = {f["id"]: f for f in json.loads(out)["findings"]}
    assert found["block.live-only:0:nomerges"]["severity"] == "warning"
    assert "sdb" in found["block.live-only:0:nomerges"]["message"]


def test_a_rule_that_sets_nothing_is_not_called_compliant(tmp_path, cli):
    # sr0 offers no kyber: the warning says so, and no "already have scheduler live" beside it.
    case = Path(__file__).parent / "cases/storage/legacy-scheduler"

    shutil.copytree(case / "root", tmp_path / "root", symlinks=True)
    status, out, err = cli("plan", "--root", tmp_path / "root", "--policy", case / "policy.toml", "--format", "json")
    plan = json.loads(out)
    assert any(f["id"] == "block.live:sr0:scheduler" for f in plan["findings"])
    assert not [c for c in plan["compliant"] if c["rule"] == "block[1]"], plan["compliant"]


MPATH_POLICY = ('[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\nnomerges = 1\n'
                'multipath = { rr_min_io_rq = 1 }\n')


def _ids(cli, root, policy, command="plan"):
    status, out, err = cli(command, "--root", root, "--policy", policy, "--format", "json")
    doc = json.loads(out)
    return doc, {f["id"]: f for f in doc.get("findings", [])}


def test_multipathd_reconfigure_stays_pending_until_the_daemon_restarted(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2, multipath_conf="defaults {\n\tuser_friendly_names yes\n}\n")
    pidfile = root / "run/multipathd.pid"
    write(root, "/run/multipathd.pid", "4242\n")
    os.utime(pidfile, (1_000_000, 1_000_000))  # the daemon started long before
    policy = write(tmp_path, "p.toml", MPATH_POLICY)
    plan, found = _ids(cli, root, policy)
    assert found["block.multipath-reconfigure"]["severity"] == "info"  # said along with the change
    _apply(cli, root, policy)
    plan, found = _ids(cli, root, policy)
    assert not [c for c in plan["changes"] if c["id"] == "block.multipath"]
    pending = found["block.multipath-reconfigure"]
    assert pending["pending"] is True and pending["severity"] == "warning"
    assert "changed after multipathd started" in pending["message"]
    doc, _ = _ids(cli, root, policy, "check")
    result = next(r for r in doc["results"] if r["id"] == "block.multipath-reconfigure")
    assert result["state"] == "pending"
    os.utime(pidfile)  # multipathd restarted (reconfigured) now
    plan, found = _ids(cli, root, policy)
    assert "block.multipath-reconfigure" not in found
    assert any(c["rule"] == "block.multipath" and "multipathd runs it" in c["message"] for c in plan["compliant"])


def test_running_config_decides_on_a_live_host():
    from numatune.families.storage import multipath_conf, multipathd
    want = [{"vendor": "3PARdata", "product": "VV", "settings": {"rr_min_io_rq": "1"}}]
    shown = ('devices {\n\tdevice {\n\t\tvendor "3PARdata"\n\t\tproduct "VV"\n\t\trr_min_io_rq 100\n\t}\n'
             '\tdevice {\n\t\tvendor "NETAPP"\n\t\tproduct "LUN.*"\n\t}\n}\n')
    facts = {"multipathd_state": {"running": multipath_conf.parse_devices(shown)}}
    assert multipathd.state(want, facts)[0] == "stale"
    later = shown.replace("}\n}\n", "}\n\tdevice {\n\t\tvendor \"3PARdata\"\n\t\tproduct \"VV\"\n\t\trr_min_io_rq 1\n"
                                    "\t}\n}\n")
    facts = {"multipathd_state": {"running": multipath_conf.parse_devices(later)}}
    assert multipathd.state(want, facts)[0] == "loaded"  # the last entry for the array wins, as in multipathd
    assert multipathd.state(want, {"multipathd_state": {}})[0] == "unknown"


def test_queue_settings_off_target_are_warnings_and_cache_type_is_critical(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\nnr_requests = 1024\n'
                                       'queue_depth = 64\ncache_type = "write through"\n'
                                       'acknowledge_volatile_cache_risk = true\n')
    results = _check(cli, root, policy)
    assert results["block.live:sdb:nr_requests"]["severity"] == "warning"
    assert results["block.live:sdb:queue_depth"]["severity"] == "warning"
    assert results["block.live:sdb:cache_type"]["severity"] == "critical"  # a volatile write-back cache loses data


def test_maps_of_two_arrays_that_no_pattern_tells_apart_are_named_and_said(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    _add_lun(root, 1, "3600a098038303053453f463045726b77", 3, "ora_redo0", vendor="NETAPP", model="LUN C-Mode")
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { model = "*" }\nrotational = 0\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    plan = json.loads(out)
    pinned = next(f for f in plan["findings"] if f["id"] == "block.udev-pinned:0")
    assert pinned["severity"] == "warning" and "LUN added later" in pinned["message"]
    rules = [c["desired"] for c in plan["changes"] if c["id"].startswith("block.udev:")]
    # Today's two maps by their WWIDs (the only honest selector left), the paths by the selector itself.
    assert any("mpath-360002ac000000000000000000019f0f|mpath-3600a098038303053453f463045726b77" in r for r in rules)
    assert any('ATTRS{model}=="*"' in r for r in rules)
