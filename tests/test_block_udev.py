"""The udev rules generator/parser and the multipath.conf section editor,
pure: round trips on generated input, and a saved plan with block writes."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from block_fixture import san_host
from conftest import write
from numatune.families.storage import multipath_conf, udev_rules

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)
GLOB = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789*?_-. \"\\", min_size=1, max_size=12).filter(
    lambda s: s.strip())


@settings(max_examples=150, deadline=None)
@given(st.fixed_dictionaries({}, optional={
    "name": st.one_of(GLOB, st.lists(GLOB, min_size=1, max_size=3)),
    "vendor": GLOB, "model": GLOB, "dm_name": GLOB, "rotational": st.booleans(),
    "kind": st.sampled_from(["disk", "dm-multipath", "dm", "nvme", "loop"]),
    "udev": st.dictionaries(st.from_regex(r"^[A-Z][A-Z0-9_]{0,8}$", fullmatch=True), GLOB, max_size=2),
}), st.sampled_from(sorted(["queue/scheduler", "queue/nr_requests", "device/queue_depth"])), GLOB)
def test_rules_parse_back_into_what_was_generated(match, attr, value):
    keys = udev_rules.selector_keys(match)
    entries = [("block[0]: why, with \"quotes\"\nand a newline", keys, ("ATTR{%s}" % attr, value))]
    text = udev_rules.render(entries)
    assert udev_rules.parse(text) == [(keys, [("ATTR{%s}" % attr, value)])]


def test_parser_reads_continuations_and_refuses_garbage():
    text = 'KERNEL=="sd*", \\\n  ATTR{queue/nomerges}="1"\n# comment\n\n'
    assert udev_rules.parse(text) == [([("KERNEL", "==", "sd*")], [("ATTR{queue/nomerges}", "1")])]
    try:
        udev_rules.parse('KERNEL=="sd*", this is not udev\n')
    except udev_rules.RuleSyntaxError as e:
        assert "line 1" in str(e)
    else:
        raise AssertionError("garbage parsed")


def test_matching_follows_udev():
    dev = {"name": "sdb", "udev": {"DEVTYPE": "disk", "ID_SERIAL": "3600a"}, "attrs": {"vendor": "3PARdata",
                                                                                      "model": "VV      "}}
    assert udev_rules.matches([("ATTRS{model}", "==", "VV")], dev)  # trailing blanks ignored
    assert udev_rules.matches([("KERNEL", "==", "sda|sdb")], dev)
    assert udev_rules.matches([("ENV{DM_UUID}", "!=", "mpath-*")], dev)  # unset is "", which != matches
    assert not udev_rules.matches([("ENV{DM_UUID}", "==", "mpath-*")], dev)
    assert not udev_rules.matches([("KERNEL", "!=", udev_rules.NOT_DISK), ("ATTRS{vendor}", "==", "DELL")], dev)


_DEVICE = st.fixed_dictionaries({
    "name": st.sampled_from(["sda", "sdb", "dm-0", "dm-1", "nvme0n1", "loop0"]),
    "udev": st.dictionaries(st.sampled_from(["DEVTYPE", "DM_UUID", "DM_NAME", "ID_SERIAL"]),
                            st.sampled_from(["disk", "mpath-3600a", "LVM-x", "ora_1", "3600a", ""]), max_size=3),
    "dm_name": st.sampled_from([None, "ora_1", "data"]), "dm_uuid": st.sampled_from([None, "mpath-3600b", "LVM-y"]),
    "attrs": st.fixed_dictionaries({"vendor": st.sampled_from(["3PARdata", "DELL  "]),
                                    "model": st.sampled_from(["VV      ", "MD"]),
                                    "queue/rotational": st.sampled_from(["0", "1", None])}),
    "scheduler": st.sampled_from([{"current": "none", "available": ["mq-deadline", "none"]},
                                  {"current": None, "available": []}])})
_KEY = st.tuples(st.sampled_from(["KERNEL", "SUBSYSTEM", "ACTION", "ENV{DM_UUID}", "ENV{DM_NAME}", "ENV{DEVTYPE}",
                                  "ENV{ID_SERIAL}", "ATTRS{vendor}", "ATTRS{model}", "ATTR{queue/rotational}",
                                  "ATTR{queue/scheduler}", "OTHER"]),
                 st.sampled_from(["==", "!="]),
                 st.sampled_from(["sd*", "dm-*", "block", "add|change", "mpath-*", "mpath-3600a", "ora_*|data",
                                  "disk", "", "3PARdata", "VV", "0", udev_rules.NOT_DISK, "*[[ ]none[] ]*", "sd[ab]"]))


@given(st.lists(_DEVICE, max_size=6), _KEY)
def test_a_key_matches_the_devices_it_matches_one_by_one(devices, key):
    """matching() tests a key on every device at once (#38): the same devices as key_matches one by one."""
    devices = {"%s-%d" % (d["name"], i) if i else d["name"]: dict(d, name="%s%d" % (d["name"], i))
               for i, d in enumerate(devices)}
    expected = frozenset(n for n, d in devices.items() if udev_rules.key_matches(d, *key))
    assert udev_rules.matching([key], devices, {}) == expected


CONF = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200).filter(
    lambda t: "numatune" not in t).map(lambda t: t if not t or t.endswith("\n") else t + "\n")
DEVICES = st.lists(st.fixed_dictionaries({
    "vendor": st.sampled_from(["3PARdata", "NETAPP", "DGC"]), "product": st.sampled_from(["VV", "LUN.*"]),
    "settings": st.dictionaries(st.sampled_from(["rr_min_io_rq", "no_path_retry", "path_grouping_policy"]),
                                st.one_of(st.integers(0, 100), st.sampled_from(["multibus", "queue"])),
                                min_size=1)}), min_size=1, max_size=3)


@settings(max_examples=100, deadline=None)
@given(CONF, CONF, DEVICES, DEVICES)
def test_section_edit_keeps_every_other_byte(before, after, devices, others):
    edited = multipath_conf.set_section(before, devices)
    assert edited.startswith(before)
    assert multipath_conf.current_section(edited) == multipath_conf.render_section(devices)
    # A user adds lines after our section; replacing it leaves theirs alone.
    edited += after
    again = multipath_conf.set_section(edited, others)
    assert again == before + multipath_conf.render_section(others) + after
    assert multipath_conf.set_section(again, []) == before + after
    parsed = multipath_conf.parse_devices(multipath_conf.render_section(others))
    assert [(d["vendor"], d["product"]) for d in parsed] == [(d["vendor"], d["product"]) for d in others]


def test_absent_multipath_conf_is_not_created():
    assert multipath_conf.set_section(None, [{"vendor": "3PARdata", "product": "VV", "settings": {"a": 1}}]) is None


def test_saved_plan_with_block_writes_applies(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    policy = write(tmp_path, "p.toml", '[[block]]\nmatch = { dm_name = "ora_*" }\nscheduler = "deadline"\n'
                                       'nr_requests = 512\n')
    saved = tmp_path / "plan.json"
    assert cli("plan", "--root", root, "--policy", policy, "--out", saved)[0] == 0
    writes = [w for c in json.loads(saved.read_text())["changes"] for w in c["writes"]]
    sched = next(w for w in writes if w["kind"] == "blockattr")
    assert sched["value"] == "mq-deadline" and sched["args"]["coupled"] == ["/sys/block/dm-0/queue/nr_requests"]
    status, out, err = cli("apply", "--root", root, "--plan", saved, "--yes")
    assert status == 0, err + out
    assert (root / "sys/block/dm-0/queue/scheduler").read_text() == "mq-deadline\n"
    assert (root / "sys/block/sdc/queue/nr_requests").read_text() == "512\n"


def test_a_rule_s_keys_asked_again_are_answered_from_the_memo():
    """matching() keeps a rule's whole answer (issue #38: one plan asks about a rule several times, and
    each intersection walks thousands of names): asked again, it intersects nothing; no keys is every device."""
    devices = {"sda": {"name": "sda", "udev": {"DEVTYPE": "disk"}, "attrs": {"vendor": "3PARdata"}},
               "sdb": {"name": "sdb", "udev": {"DEVTYPE": "disk"}, "attrs": {"vendor": "DELL"}}}
    keys = [("ENV{DEVTYPE}", "==", "disk"), ("ATTRS{vendor}", "==", "3PARdata")]
    memo = {}
    assert udev_rules.matching(keys, devices, memo) == {"sda"}
    memo[keys[0]] = frozenset()     # a key's answer no longer used for the rule's
    assert udev_rules.matching(keys, devices, memo) == {"sda"}
    assert udev_rules.matching(keys[:1], devices, memo) == frozenset()
    assert udev_rules.matching([], devices, memo) == {"sda", "sdb"}
