"""How `facts --format policy` groups devices and NICs into rules (issue #37):
never one rule per device on a 4,096-path host; a group's most common value,
then the kind (maps, paths) and the devices that differ. Pure: facts in."""
from numatune.families.network import as_policy as net
from numatune.families.storage import as_policy as block


def _dev(kind, nr, vendor="3PARdata", model="VV", scheduler="mq-deadline"):
    return {"kind": kind, "vendor": vendor, "model": model,
            "scheduler": {"current": scheduler, "available": ["mq-deadline", "none"]},
            "settings": {"nr_requests": {"value": str(nr)}}}


def _rules(devices, attr="nr_requests"):
    said, _ = block.as_policy({"storage": {"devices": devices}})
    return [r for r in said["block"] if attr in r]


def test_4096_paths_of_one_array_are_one_rule():
    devices = {"sd%d" % i: _dev("disk", 256) for i in range(4096)}
    devices.update({"dm-%d" % i: _dev("dm-multipath", 256) for i in range(1024)})
    assert _rules(devices) == [{"match": {"vendor": "3PARdata", "model": "VV"}, "nr_requests": 256}]


def test_maps_that_differ_get_their_kind_and_odd_paths_their_names():
    devices = {"sd%d" % i: _dev("disk", 256) for i in range(8)}
    devices.update({"dm-%d" % i: _dev("dm-multipath", 128) for i in range(2)})
    devices["sd3"] = _dev("disk", 64)
    array = {"vendor": "3PARdata", "model": "VV"}
    assert _rules(devices) == [{"match": array, "nr_requests": 256},
                               {"match": dict(array, kind="dm-multipath"), "nr_requests": 128},
                               {"match": {"name": ["sd3"]}, "nr_requests": 64}]


def test_devices_without_vendor_or_model_go_by_kind_and_loops_are_left_out():
    devices = {"dm-0": _dev("dm", 128, vendor=None, model=None), "loop0": _dev("loop", 128, None, None)}
    assert _rules(devices) == [{"match": {"kind": "dm"}, "nr_requests": 128}]


def test_a_scheduler_the_device_cannot_change_is_not_said():
    dev = _dev("disk", 256, scheduler="none")
    dev["scheduler"]["available"] = ["none"]
    assert _rules({"sda": dev}, "scheduler") == []


def _nic(driver, mtu):
    return {"type": 1, "driver": driver, "mtu": mtu, "ethtool": None}


def test_nics_of_one_driver_with_one_mtu_are_one_rule_else_by_name():
    nics = {"ens%d" % i: _nic("i40e", 9000) for i in range(64)}
    nics.update({"eno1": _nic("tg3", 1500), "eno2": _nic("tg3", 9000), "lo": _nic(None, 65536)})
    said, more = net.as_policy({"network": {"interfaces": nics}})
    assert said["net"] == [{"match": {"driver": "i40e"}, "mtu": 9000}, {"match": {"name": "eno1"}, "mtu": 1500},
                           {"match": {"name": "eno2"}, "mtu": 9000}]
    assert more["net"][0]["rx_flow_hash"]
