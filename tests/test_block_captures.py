"""Block facts and [[block]] plans on the real captures: pure parsers on
their raw text, discovery on the unpacked trees, and apply/revert on a copy
that must come back byte for byte."""
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import REALDATA, _unpack, tree_digest, write
from numatune.facts.kernel import parse_uevent
from numatune.families.storage import current, facts as facts_block
from numatune.root import Root

PCI = "40intel64-2g2n4c+pcilocality"
NVME = "32em64t-2n8c+dax+nvme+mic+dimms"
THIS_VM = REALDATA / "this-vm"


@pytest.mark.parametrize("text, expected", [
    ("noop anticipatory deadline [cfq] \n", ("cfq", ["noop", "anticipatory", "deadline", "cfq"])),
    ("[none] mq-deadline kyber bfq \n", ("none", ["none", "mq-deadline", "kyber", "bfq"])),
    ("none\n", ("none", ["none"])),          # old nvme: one scheduler, no brackets
    ("\n", (None, [])),                        # zram: bio-based, no scheduler
    ("mq-deadline\n", ("mq-deadline", ["mq-deadline"])),  # a copied tree after a write
])
def test_parse_scheduler(text, expected):
    assert facts_block.parse_scheduler(text) == expected


def test_parse_udev_db_keeps_properties_only():
    text = ("S:disk/by-id/scsi-360002ac0000000000000000a00019f0f\nW:7\nI:9172836\n"
            "E:ID_VENDOR=3PARdata\nE:ID_MODEL=VV\nE:ID_SERIAL=360002ac0000000000000000a00019f0f\n"
            "E:DM_MULTIPATH_DEVICE_PATH=1\nE:SYSTEMD_READY=0\nG:systemd\n")
    props = facts_block.parse_udev_db(text)
    assert props["ID_SERIAL"] == "360002ac0000000000000000a00019f0f"
    assert facts_block.keep_properties(props) == {
        "ID_VENDOR": "3PARdata", "ID_MODEL": "VV", "ID_SERIAL": "360002ac0000000000000000a00019f0f",
        "DM_MULTIPATH_DEVICE_PATH": "1"}


@pytest.fixture
def unpacked(capture_cache):
    """The session's unpacked capture, for tests that only read it."""
    return lambda name: _unpack(name, capture_cache)


def test_real_scsi_disk_facts(unpacked):
    root = Root(str(unpacked(PCI)))
    devices = facts_block.discover_sysfs(root)
    sda = devices["sda"]
    assert (sda["kind"], sda["vendor"], sda["model"], sda["rotational"]) == ("disk", "DELL", "PERC H700", 1)
    assert sda["scheduler"] == {"current": "cfq", "available": ["noop", "anticipatory", "deadline", "cfq"]}
    assert sda["size"] == 3512991744 * 512 and sda["dev"] == "8:0"
    assert sda["numa_node"] is None  # its HBA says -1
    assert devices["sr0"]["kind"] == "rom"
    assert not [n for n in devices if n.startswith("sda") and n != "sda"]  # partitions are not devices
    settings = current.read_settings(root, sda, ["queue_depth", "cache_type", "max_hw_sectors_kb"])
    assert settings["queue_depth"]["value"] == "128"
    assert settings["cache_type"] == {"path": "/sys/block/sda/device/scsi_disk/0:2:0:0/cache_type",
                                      "value": "write back"}
    assert settings["max_hw_sectors_kb"]["value"] == "128"


def test_nvme_listed_only_under_class_block(unpacked):
    devices = facts_block.discover_sysfs(Root(str(unpacked(NVME))))
    nvme = devices["nvme0n1"]
    assert nvme["kind"] == "nvme" and nvme["sysfs"] == "/sys/class/block/nvme0n1"
    assert nvme["scheduler"] == {"current": "none", "available": ["none"]}
    assert "nvme0n1p1" not in devices


def test_this_vm_snapshot():
    if not (THIS_VM / "sys/block").is_dir():
        pytest.skip("no this-vm snapshot")
    devices = facts_block.discover_sysfs(Root(str(THIS_VM)))
    assert devices["vda"]["scheduler"]["current"] == "mq-deadline"
    assert devices["zram0"]["scheduler"] == {"current": None, "available": []}


POLICY = """
[[block]]
match = { kind = "disk", name = "sd*" }
scheduler = "deadline"
nr_requests = 512
read_ahead_kb = 4096
queue_depth = 64
nomerges = 1
why = "capture test"

[[block]]
match = { kind = "nvme" }
scheduler = "noop"
read_ahead_kb = 256
"""


@pytest.mark.parametrize("name", [PCI, NVME])
def test_plan_apply_revert_on_captures_with_block_devices(name, capture, cli, tmp_path):
    root = capture(name)
    policy = write(tmp_path, "block.toml", POLICY)
    before = tree_digest(root)
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    live = {c["id"]: c for c in plan["changes"] if c["scope"] == "live"}
    # A legacy kernel offers "deadline" itself; "noop" on an nvme with only "none" is already met.
    assert live["block.live:sda:scheduler"]["desired"] == "deadline"
    assert live["block.live:sda:queue_depth"]["current"] in ("128", "31")
    assert not [i for i in live if ":nvme0n1:scheduler" in i]
    assert not [i for i in live if ":sr0:" in i or ":loop" in i]
    status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
    assert status == 0, err + out
    assert (Path(root) / "sys/block/sda/queue/scheduler").read_text() == "deadline\n"
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert json.loads(out)["changes"] == []
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


def test_legacy_scheduler_names_and_a_scheduler_not_offered(unpacked, cli, tmp_path):
    root = unpacked(PCI)  # plan only: nothing is written
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { name = "sda" }\nscheduler = "none"\n'
                                       '[[block]]\nmatch = { name = "sr0" }\nscheduler = "kyber"\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert [(c["target"], c["desired"]) for c in plan["changes"] if c["scope"] == "live"] == [
        ("sda queue/scheduler", "noop")]
    warning = [f for f in plan["findings"] if f["severity"] == "warning"]
    assert len(warning) == 1 and "sr0 offers noop anticipatory deadline cfq, none of kyber" in warning[0]["message"]


def test_default_policy_leaves_the_boot_disk_alone(unpacked, cli):
    root = unpacked(PCI)  # plan only: nothing is written
    status, out, err = cli("plan", "--root", root, "--only", "storage", "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    assert plan["changes"] == []
    assert plan["policy"].get("block"), "the shipped default policy carries the Superdome X storage rules"
    assert all(f["severity"] == "info" for f in plan["findings"])


# Every break str.splitlines knows besides "\n" (the ASCII ones are found without the pattern), and a
# text that is not ASCII without one.
_DB_PIECES = ["E:", "ID_", "DM_", "MPATH_", "DEVTYPE", "DEVTYP", "DEVTYPES", "=", "\n", "\r", "\x85", "S:", "x",
              " ", "E:ID_SERIAL=3600", "\u2028", "\u2029", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x1f", "\xe9",
              "\r\n"]


@given(st.lists(st.sampled_from(_DB_PIECES), max_size=40).map("".join))
def test_the_database_s_kept_properties_are_what_parsing_everything_keeps(text):
    """kept_udev_db finds only the kept E: lines, at C speed (issue #38): the
    same properties, in the same order, as parsing every line and keeping some."""
    want = facts_block.keep_properties(facts_block.parse_udev_db(text))
    got = facts_block.kept_udev_db(text)
    assert got == want and list(got) == list(want)


_UEVENT_PIECES = ["ID_", "DM_", "MPATH_", "DEVTYPE", "DEVTYP", "DEVTYPES", "MAJOR", "=", "\n", "\r", "\x85", "\x1f",
                  "\v", "x", " ", "\t", "\xa0", "\x00", "DEVTYPE=disk\n", "ID_SERIAL = 3600 \n"]


@given(st.lists(st.sampled_from(_UEVENT_PIECES), max_size=40).map("".join))
def test_a_uevent_s_kept_properties_are_what_parsing_everything_keeps(text):
    """kept_uevent finds only the kept KEY=value lines of a uevent at C speed
    (issue #38): the same properties, stripped alike, in the same order."""
    want = facts_block.keep_properties(parse_uevent(text))
    got = facts_block.kept_uevent(text)
    assert got == want and list(got) == list(want)


@pytest.mark.parametrize("brk", ["\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r\n"])
def test_a_database_line_break_other_than_newline_splits_as_parsing_does(brk):
    """kept_udev_db's fast path is taken only without these breaks: each one ends
    a property as str.splitlines ends its line."""
    text = "E:ID_VENDOR=3PARdata%sE:ID_MODEL=VV\nE:DEVTYPE=disk\n" % brk
    want = facts_block.keep_properties(facts_block.parse_udev_db(text))
    assert facts_block.kept_udev_db(text) == want == {"ID_VENDOR": "3PARdata", "ID_MODEL": "VV", "DEVTYPE": "disk"}
