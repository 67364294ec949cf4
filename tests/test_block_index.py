"""The block-device index (issue #18, read once): one listing of
/sys/dev/block gives each device's number, sysfs path and partition-or-not.
The devices found with it are exactly those found reading each device's own
files, on this machine's real /sys and on a bench host laid out like a SAN
server (SCSI paths, multipath maps, an NVMe disk with partitions)."""
import sys

import pytest

from conftest import REPO
from numatune.families.storage import current, facts
from numatune.root import Root


@pytest.fixture(scope="module")
def bench_root(tmp_path_factory):
    sys.path.insert(0, str(REPO / "bench"))
    from make_host import make_host
    path = tmp_path_factory.mktemp("host") / "root"
    make_host(str(path), sockets=2, nodes=2, cpus=8, luns=6, paths=2, nics=1, queues=2, instances=1, procs=20)
    return Root(str(path))


def _without_index(root, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(facts, "block_index", lambda root: {})
        return facts.discover_sysfs(root)


@pytest.mark.parametrize("which", ["live /sys", "bench host"])
def test_the_index_finds_what_reading_each_device_finds(which, bench_root, monkeypatch):
    root = Root("/") if which == "live /sys" else bench_root
    index = facts.block_index(root)
    if not index:
        pytest.skip("no /sys/dev/block here")
    with_index = facts.discover_sysfs(root)
    assert with_index == _without_index(root, monkeypatch)
    assert with_index, "no block device found"
    # Partitions are in the index but never devices of their own.
    partitions = [n for n, (_, _, part) in index.items() if part]
    assert not set(partitions) & set(with_index)
    for name, dev in with_index.items():
        assert index[name][0] == dev["dev"]


def test_the_bench_host_has_partitions_and_multipath_maps(bench_root):
    index = facts.block_index(bench_root)
    devices = facts.discover_sysfs(bench_root)
    assert any(part for _, _, part in index.values()), "the fixture should hold partitions"
    assert sum(d["kind"] == "dm-multipath" for d in devices.values()) == 6


def test_kinds_by_name_are_prefixes_and_classify_as_globs_do():
    """classify tests NAME_KINDS as prefixes (issue #38: 5,000 devices): each pattern is "prefix*",
    and a name gets the kind the first matching glob gives."""
    import fnmatch
    assert all(p.endswith("*") and not any(c in p[:-1] for c in "*?[") for p, _ in facts.NAME_KINDS)
    for name in ("sda", "loop0", "nvme0n1", "md127", "sr0", "ram1", "zram0", "nbd3", "vda", "xvdb", "loo", "nv",
                 "loop\n1", "mdx"):
        globbed = next((k for p, k in facts.NAME_KINDS if fnmatch.fnmatchcase(name, p)), "disk")
        assert facts.classify(name, None) == globbed, name
    assert facts.classify("dm-3", "mpath-360002ac0") == "dm-multipath"
    assert facts.classify("dm-3", "LVM-abc") == "dm"


@pytest.mark.parametrize("pattern", ["3PARdata", "3PAR*", "VV", "V?", "[VD]*", "", "a.b", "x(y)", "*"])
@pytest.mark.parametrize("value", ["3PARdata", "3PARdataX", "VV", "DELL", "a.b", "axb", "x(y)", "V\n", ""])
def test_a_selector_glob_matches_as_fnmatchcase(pattern, value):
    """The rules' vendor/model globs are compiled once (issue #38): the same answer as fnmatchcase."""
    import fnmatch
    from numatune.families.storage import knob
    assert bool(knob._glob(pattern)(value)) == fnmatch.fnmatchcase(value, pattern)


def test_a_map_without_device_dir_is_not_probed_for_queue_depth(bench_root, monkeypatch):
    """A map whose identity found no device/ has no SCSI queue_depth: none is read for it (issue #38:
    4,096 failed opens on a many-maps host), and its setting reads as absent, as a failed read did."""
    read_along = {}
    devices = facts.discover_sysfs(bench_root, attrs=["queue_depth"], read=read_along)
    maps = [n for n, d in devices.items() if d["kind"] == "dm-multipath"]
    asked = []
    monkeypatch.setattr(bench_root, "read_text", lambda path, default=None: asked.append(path) or default)
    for name in maps:
        got = current.read_settings(bench_root, devices[name], ["queue_depth"], read_along.get(name))
        assert got["queue_depth"]["value"] is None
    assert maps and not [p for p in asked if p.endswith("/device/queue_depth")]


def test_a_virtual_map_is_not_asked_for_a_device_directory(bench_root, monkeypatch):
    """A device under /sys/devices/virtual (a device-mapper map) has no parent device, so no device/
    link: no stat asks (issue #38: 4,096 failed stats on a many-maps host); a map found elsewhere is
    still asked, and the identities are the same as when every map is asked."""
    asked = []
    real_exists = bench_root.exists
    monkeypatch.setattr(bench_root, "exists", lambda path: asked.append(path) or real_exists(path))
    devices = facts.discover_sysfs(bench_root)
    index = facts.block_index(bench_root)
    maps = [n for n in devices if n.startswith("dm-")]
    assert maps and all(index[n][1].startswith("/sys/devices/virtual/") for n in maps)
    assert not [p for p in asked if p.endswith("/device")]
    monkeypatch.setattr(facts, "_VIRTUAL", "/nowhere/")
    asked.clear()
    assert facts.discover_sysfs(bench_root) == devices
    assert sorted(p for p in asked if p.endswith("/device")) == sorted("/sys/block/%s/device" % n for n in maps)


def test_the_udev_database_is_read_in_one_go(bench_root, monkeypatch):
    """The devices the index numbers have their udev database files read together, in one directory
    lookup (issue #38: 5,000 files on a giant host), to the same properties as read one by one."""
    asked = []
    real_read_text = bench_root.read_text
    monkeypatch.setattr(bench_root, "read_text", lambda path, default=None: asked.append(path) or real_read_text(path))
    devices = facts.discover_sysfs(bench_root)
    assert not [p for p in asked if p.startswith(facts.UDEV_DB + "/")]
    assert any(d["udev"].get("ID_VENDOR") for d in devices.values()), "the fixture should have a udev database"
    monkeypatch.setattr(bench_root, "read_texts", lambda directory, names, real=bench_root.read_texts: (
        {} if directory == facts.UDEV_DB else real(directory, names)))
    assert facts.discover_sysfs(bench_root) == devices
    assert len([p for p in asked if p.startswith(facts.UDEV_DB + "/")]) == len(devices)


_MATCH_DEVICES = [{"name": n, "kind": k, "rotational": r, "vendor": v, "model": m, "wwn": None, "dm_name": None,
                   "udev": {}}
                  for n, k in (("sda", "disk"), ("dm-0", "dm-multipath"))
                  for r in (0, 1, None) for v in ("3PARdata", "DELL", None) for m in ("VV", "MD", "")]


@pytest.mark.parametrize("match", [{"vendor": "3PARdata"}, {"vendor": "3PAR*", "model": "VV"}, {"kind": "disk"},
                                   {"rotational": False}, {"rotational": True, "model": "M?"},
                                   {"kind": "dm-multipath", "vendor": "*"}, {"name": "sd*"},
                                   {"model": "VV", "name": "dm-*"}, {"udev": {"ID_X": "1"}}, {}])
def test_a_rule_s_selector_answers_as_selects_does_device_by_device(match):
    """_select tests a match on shared fields once per distinct set of values (issue #38: 5,000 LUNs
    of one vendor and model): the same answer, asked in any order, as selects() on each device."""
    from numatune.families.storage import knob
    test = knob._selector(match)
    for dev in _MATCH_DEVICES + _MATCH_DEVICES[::-1]:
        assert test(dev) == knob.selects(match, dev), (match, dev)


def test_devices_the_same_rules_set_share_one_dict_of_settings():
    """_select gives the devices the same rules set one dict (issue #38: 8,192 devices x 7 settings on
    the dm shape), a later rule a new one: each device's settings are what the rules give it, in order."""
    from numatune.families.storage import knob
    devices = {n: {"name": n, "kind": "disk", "rotational": 1, "vendor": v, "model": "VV", "slaves": []}
               for n, v in (("sda", "3PARdata"), ("sdb", "3PARdata"), ("sdc", "DELL"), ("sdd", "3PARdata"))}
    data = {"block": [{"match": {"vendor": "3PARdata"}, "nomerges": 1, "read_ahead_kb": 128},
                      {"match": {"name": ["sdb", "sdc"]}, "read_ahead_kb": 256, "rotational": 0}]}
    _, assigned = knob._select(data, devices)
    assert assigned == {"sda": {"nomerges": ("1", 0), "read_ahead_kb": ("128", 0)},
                        "sdd": {"nomerges": ("1", 0), "read_ahead_kb": ("128", 0)},
                        "sdb": {"nomerges": ("1", 0), "read_ahead_kb": ("256", 1), "rotational": ("0", 1)},
                        "sdc": {"read_ahead_kb": ("256", 1), "rotational": ("0", 1)}}
    assert list(assigned["sdb"]) == ["read_ahead_kb", "nomerges", "rotational"]
    assert assigned["sda"] is assigned["sdd"]
    assert len({id(a) for a in assigned.values()}) == 3
