"""[[block]] on SAN roots built in the test (SCSI paths, dm-multipath maps,
udev database files): what this VM has none of."""
import json

import pytest

from block_fixture import san_host, udev_db
from conftest import tree_digest, write
from numatune.families.storage import multipath_conf, udev_rules, udev_targets
from numatune.families.storage import current, facts as facts_block
from numatune.families.storage import facts_snapshot
from numatune.root import Root

USER_CONF = """# site multipath.conf, hand written
defaults {
\tuser_friendly_names yes   # keep this comment
\tfind_multipaths yes
}
blacklist {
\tdevnode "^sda$"
}
"""

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
multipath = { rr_min_io_rq = 1, path_grouping_policy = "multibus" }
why = "3PAR LUNs are SSD-backed"
"""


@pytest.fixture
def san(tmp_path):
    root = tmp_path / "root"
    san_host(root, luns=2, paths=2, multipath_conf=USER_CONF)
    return root


def _plan(cli, root, policy, *extra):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json", *extra)
    assert status == 0, err
    return json.loads(out)


def test_multipath_map_setting_goes_to_every_path_and_spares_the_boot_disk(san, cli, tmp_path):
    policy = write(tmp_path, "p.toml", POLICY)
    plan = _plan(cli, san, policy)
    live = {c["id"]: c for c in plan["changes"] if c["scope"] == "live"}
    for dev in ("dm-0", "dm-1"):
        assert live["block.live:%s:scheduler" % dev]["desired"] == "mq-deadline"
        assert live["block.live:%s:nr_requests" % dev]["desired"] == "1024"
        # A map has no SCSI device: queue_depth is for its paths only, silently.
        assert "block.live:%s:queue_depth" % dev not in live
    for path, mp in (("sdb", "ora_data0"), ("sdc", "ora_data0"), ("sdd", "ora_data1"), ("sde", "ora_data1")):
        change = live["block.live:%s:queue_depth" % path]
        assert change["target"] == "%s (path of %s) queue_depth" % (path, mp)
        assert (change["current"], change["desired"]) == ("32", "64")
        assert live["block.live:%s:rotational" % path]["desired"] == "0"
    assert not [c for c in plan["changes"] if ":sda:" in c["id"]]
    assert not [f for f in plan["findings"] if f["severity"] != "info"]


# What POLICY sets on each device of the san fixture, spelled as udev
# assignments: block[0] (maps ora_*, and through them their paths) and
# block[1] (3PAR vendor/model: the paths, and the maps that answer to their
# paths' vendor). "deadline" is "mq-deadline" on these blk-mq devices, and a
# map has no SCSI device, so no queue_depth. The boot disk gets nothing.
PATH_UDEV = {"ATTR{queue/scheduler}": "mq-deadline", "ATTR{queue/nr_requests}": "1024",
             "ATTR{device/queue_depth}": "64", "ATTR{queue/rotational}": "0", "ATTR{queue/nomerges}": "1"}
MAP_UDEV = {"ATTR{queue/scheduler}": "mq-deadline", "ATTR{queue/nr_requests}": "1024",
            "ATTR{queue/rotational}": "0", "ATTR{queue/nomerges}": "1"}
EXPECTED_UDEV = {"sda": {}, "sdb": PATH_UDEV, "sdc": PATH_UDEV, "sdd": PATH_UDEV, "sde": PATH_UDEV,
                 "dm-0": MAP_UDEV, "dm-1": MAP_UDEV}


def test_udev_rules_parse_back_into_the_plan_and_match_exactly_its_devices(san, cli, tmp_path):
    policy = write(tmp_path, "p.toml", POLICY)
    status, out, err = cli("apply", "--root", san, "--policy", policy, "--yes")
    assert status == 0, err + out
    text = (san / udev_rules.PATH.lstrip("/")).read_text()
    rules = udev_rules.parse(text)
    assert rules and all(len(assigns) == 1 for _, assigns in rules)  # one rule per setting
    devices = facts_block.discover_sysfs(Root(str(san)))
    assert sorted(devices) == sorted(EXPECTED_UDEV)
    assert udev_targets.effective(rules, devices) == EXPECTED_UDEV
    # Rendering what was parsed gives the same rules back.
    assert udev_rules.parse(udev_rules.render([("c", k, a[0]) for k, a in rules])) == rules


def test_apply_plan_clean_and_revert_exact_with_multipath_conf(san, cli, tmp_path):
    policy = write(tmp_path, "p.toml", POLICY)
    before = tree_digest(san)
    plan = _plan(cli, san, policy)
    mp = [c for c in plan["changes"] if c["id"] == "block.multipath"]
    assert mp and mp[0]["restart_required"] and "rr_min_io_rq 1" in mp[0]["desired"]
    status, out, err = cli("apply", "--root", san, "--policy", policy, "--yes")
    assert status == 0, err + out
    conf = (san / "etc/multipath.conf").read_text()
    assert conf.startswith(USER_CONF)  # every byte outside numatune's section kept
    devs = multipath_conf.parse_devices(conf)
    assert devs == [{"vendor": "3PARdata", "product": "VV",
                     "settings": {"path_grouping_policy": "multibus", "rr_min_io_rq": "1"}}]
    assert (san / "sys/block/sdb/device/queue_depth").read_text() == "64\n"
    assert (san / "sys/block/dm-0/queue/scheduler").read_text() == "mq-deadline\n"
    assert _plan(cli, san, policy)["changes"] == []
    status, out, err = cli("revert", "--last", "--root", san)
    assert status == 0, err + out
    assert tree_digest(san) == before


def test_persistent_drift_is_found_by_parsing_the_files(san, cli, tmp_path):
    policy = write(tmp_path, "p.toml", POLICY)
    assert cli("apply", "--root", san, "--policy", policy, "--yes")[0] == 0
    rules_file = san / udev_rules.PATH.lstrip("/")
    lines = rules_file.read_text().splitlines(True)
    dropped = next(line for line in lines if "queue_depth" in line)
    # Comments and blank lines are not drift; a lost rule and a stranger are.
    rules_file.write_text("".join(line for line in lines if line != dropped) + "\n# a note\n"
                          + 'SUBSYSTEM=="block", KERNEL=="sdz", ATTR{queue/nomerges}="2"\n')
    plan = _plan(cli, san, policy)
    ids = {c["id"]: c for c in plan["changes"]}
    assert [c["desired"] for c in ids.values() if c["id"].startswith("block.udev:")] == [dropped.strip()]
    removed = [c for c in ids.values() if c["id"].startswith("block.udev-remove:")]
    assert len(removed) == 1 and 'KERNEL=="sdz"' in removed[0]["current"]
    assert not [c for c in plan["changes"] if c["scope"] == "live"]


def test_udev_property_and_wwn_selectors(san, cli, tmp_path):
    policy = write(tmp_path, "p.toml", """
[[block]]
match = { udev = { ID_SERIAL = "36c81f66*" } }
read_ahead_kb = 4096
[[block]]
match = { wwn = "naa.60002ac0000000000000001*" }
nomerges = 2
""")
    plan = _plan(cli, san, policy)
    live = sorted(c["id"] for c in plan["changes"] if c["scope"] == "live")
    # LUN 1's paths and its map (which answers to its paths' WWN).
    assert live == ["block.live:dm-1:nomerges", "block.live:sda:read_ahead_kb",
                    "block.live:sdd:nomerges", "block.live:sde:nomerges"]
    rules = [c["desired"] for c in plan["changes"] if c["id"].startswith("block.udev:")]
    assert any('ENV{ID_SERIAL}=="36c81f66*"' in r and "read_ahead_kb" in r for r in rules)
    assert any('ENV{ID_WWN_WITH_EXTENSION}=="0x60002ac0000000000000001*"' in r for r in rules)


def test_cache_type_needs_the_acknowledgement(san, cli, tmp_path):
    bad = write(tmp_path, "bad.toml", '[[block]]\nmatch = { vendor = "3PARdata" }\ncache_type = "write through"\n')
    before = tree_digest(san)
    status, out, err = cli("apply", "--root", san, "--policy", bad, "--yes")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "data loss" in err and "acknowledge_volatile_cache_risk = true" in err
    assert tree_digest(san) == before

    good = write(tmp_path, "good.toml", '[[block]]\nmatch = { name = "sdb" }\ncache_type = "write through"\n'
                                        'acknowledge_volatile_cache_risk = true\n')
    plan = _plan(cli, san, good)
    change = next(c for c in plan["changes"] if c["id"] == "block.live:sdb:cache_type")
    assert (change["current"], change["desired"], change["risk"]) == ("write back", "write through", "high")
    assert cli("apply", "--root", san, "--policy", good, "--yes")[0] == 0
    cache = san / "sys/block/sdb/device/scsi_disk/3:0:0:0/cache_type"
    # "temporary": the kernel's view only, never a MODE SELECT to the array.
    assert cache.read_text() == "temporary write through\n"
    assert _plan(cli, san, good)["changes"] == []
    assert cli("revert", "--last", "--root", san)[0] == 0
    assert tree_digest(san) == before


def test_max_sectors_above_the_hardware_limit_is_refused_at_plan_time(san, cli, tmp_path):
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { name = "sd[bc]" }\nmax_sectors_kb = 2048\n')
    before = tree_digest(san)
    for command in ("plan", "apply"):
        status, out, err = cli(command, "--root", san, "--policy", policy,
                               *(["--yes"] if command == "apply" else []))
        assert status == 2, out
        assert len(err.strip().splitlines()) == 1
        assert "max_hw_sectors_kb 1024" in err and "sdb" in err
    assert tree_digest(san) == before


@pytest.mark.parametrize("text, problem", [
    ('[[block]]\nscheduler = "none"\n', "has no match"),
    ('[[block]]\nmatch = { name = "sd*" }\n', "sets nothing"),
    ('[[block]]\nmatch = { rotational = true }\nrotational = 0\n', "matches on rotational and also sets it"),
    ('[[block]]\nmatch = { name = "sd*" }\nmultipath = { rr_min_io_rq = 1 }\n', "needs match.vendor"),
    ('[[block]]\nmatch = { name = "sd*" }\nscheduler = "deadlien"\n', "did you mean 'deadline'"),
    ('[[block]]\nmatch = { kind = "scsi" }\nnomerges = 1\n', "is not one of"),
])
def test_bad_block_rules_are_one_line_errors(san, cli, tmp_path, text, problem):
    policy = write(tmp_path, "p.toml", text)
    status, out, err = cli("plan", "--root", san, "--policy", policy)
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and problem in err, err
    assert "p.toml:" in err


def test_multipath_conf_absent_is_a_finding(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\n'
                                       'multipath = { rr_min_io_rq = 1 }\n')
    plan = _plan(cli, root, policy)
    assert [f["id"] for f in plan["findings"]] == ["block.multipath-absent"]
    assert plan["changes"] == []


def test_udev_database_properties_are_read_under_a_root(tmp_path):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=1)
    udev_db(root, "8:0", {"ID_SERIAL": "boot-disk", "ID_PATH": "pci-0000:00:1f.2-scsi-0:0:0:0"})
    devices = facts_block.discover_sysfs(Root(str(root)))
    assert devices["sda"]["udev"]["ID_SERIAL"] == "boot-disk"
    assert devices["sda"]["numa_node"] == 0 and devices["sdb"]["numa_node"] == 2
    assert devices["dm-0"]["numa_node"] == 2  # the map answers to its paths' HBA
    assert devices["dm-0"]["slaves"] == ["sdb"] and devices["sdb"]["holders"] == ["dm-0"]
    assert (devices["dm-0"]["kind"], devices["sdb"]["kind"]) == ("dm-multipath", "disk")


def test_snapshot_carries_what_block_facts_read(san, tmp_path):
    """What `numatune snapshot` takes on a live host: its PATTERNS plus
    facts.block.snapshot_paths, copied as it copies them (links as links)."""
    import os
    import shutil
    from numatune import snapshot
    udev_db(san, "8:0", {"ID_SERIAL": "boot-disk"})
    write(san, udev_rules.PATH, "# ours\n")
    live = Root(str(san))
    unpacked = tmp_path / "unpacked"
    for path in set(snapshot.walk(live)) | set(facts_snapshot.snapshot_paths(live)):
        src, dest = san / path.lstrip("/"), unpacked / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dest)
        else:
            shutil.copyfile(src, dest)
    assert facts_block.discover_sysfs(Root(str(unpacked))) == facts_block.discover_sysfs(live)
    for host_path in ("/etc/multipath.conf", udev_rules.PATH, "/run/udev/data/b8:0"):
        assert (unpacked / host_path.lstrip("/")).read_bytes() == (san / host_path.lstrip("/")).read_bytes()
    root = Root(str(unpacked))
    sdb = facts_block.discover_sysfs(root)["sdb"]
    assert current.read_settings(root, sdb, ["queue_depth", "cache_type"])["cache_type"]["value"] == "write back"


def test_a_scheduler_is_reverted_while_its_coupled_nr_requests_is_a_hardlink(san, cli, tmp_path):
    # The fault campaign (#28, a hardlink planted at dm-0's nr_requests): apply switched the
    # scheduler; revert put back the raw bytes in the journal's sorted order, nr_requests
    # first, was refused there (2 hard links) and never restored the scheduler.
    import os
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { kind = "dm-multipath", dm_name = "ora_*" }\n'
                                       'scheduler = "deadline"\n')
    nr = os.path.realpath(san / "sys/block/dm-0/queue/nr_requests")
    outside = write(tmp_path, "outside/nr_requests", "256\n")
    os.unlink(nr)
    os.link(outside, nr)
    before = tree_digest(san)
    status, out, err = cli("apply", "--root", san, "--policy", policy, "--yes")
    assert status == 0, err + out
    assert (san / "sys/block/dm-0/queue/scheduler").read_text() == "mq-deadline\n"
    status, out, err = cli("revert", "--last", "--root", san)
    assert status == 0, err + out
    assert tree_digest(san) == before and outside.read_text() == "256\n"
