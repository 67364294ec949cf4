"""No shipped policy makes a host worse than it is: on host roots whose
values are above every figure the policies give, no sysctl is planned lower
(field by field), and a sysctl a source gives as a minimum is an at_least
rule. The two exact values are switches, not sizes."""
import json

import pytest

from conftest import write
from numatune.families.sysctl import minimum
from numatune.policy.stack import load, shipped_names
from numatune.root import Root

# Off is the setting, whatever the host has: a switch has no "higher" to keep.
SWITCHES = {"kernel.numa_balancing": "0 or 1, not a size", "vm.zone_reclaim_mode": "a bit mask, not a size"}


def _sysctl(name):
    return load([name], Root("/")).data.get("sysctl", {})


@pytest.mark.parametrize("name", shipped_names())
def test_sizes_are_minimums(name):
    for key, spec in _sysctl(name).items():
        kind = minimum.spec_of(spec)[0]
        assert kind == "at_least" or key in SWITCHES, "%s: %s is set exactly; a size is a minimum" % (name, key)


@pytest.mark.parametrize("factor", [1, 4])
@pytest.mark.parametrize("name", shipped_names())
def test_a_host_at_or_above_the_figures_is_never_lowered(name, factor, tmp_path, cli):
    root = tmp_path / "root"
    write(root, "/proc/sys/kernel/osrelease", "4.18.0-553.el8_10.x86_64\n")
    floors = {}
    for key, spec in _sysctl(name).items():
        kind, value, _ = minimum.spec_of(spec)
        if kind == "at_least":
            floors[key] = value
            value = " ".join(str(int(f) * factor) for f in value.split())
        write(root, "/proc/sys/" + key.replace(".", "/"), value.replace(" ", "\t") + "\n")
        # And a boot file setting it that high too: nothing to persist either.
        write(root, "/etc/sysctl.d/50-site.conf",
              (root / "etc/sysctl.d/50-site.conf").read_text() + "%s = %s\n" % (key, value)
              if (root / "etc/sysctl.d/50-site.conf").exists() else "%s = %s\n" % (key, value))
    status, out, err = cli("plan", "--root", root, "--policy", name, "--format", "json")
    assert status == 0, err
    plan = json.loads(out)
    touched = [c for c in plan["changes"] if c["id"].startswith("sysctl.")]
    assert touched == [], [(c["id"], c["current"], c["desired"]) for c in touched]
    said = {c["rule"]: c["message"] for c in plan["compliant"]}
    for key in floors:
        assert ("already" in said["sysctl.live:" + key]) == (factor > 1), said["sysctl.live:" + key]


@pytest.mark.parametrize("name", shipped_names())
def test_lower_fields_rise_and_higher_ones_stay(name, tmp_path, cli):
    """A host with each at_least key's first fields doubled and its last
    below the figure: only the last field is planned, up to the figure."""
    root = tmp_path / "root"
    floors = {k: minimum.spec_of(s)[1] for k, s in _sysctl(name).items() if minimum.spec_of(s)[0] == "at_least"}
    if not floors:
        pytest.skip("%s sets no minimum" % name)
    live = {}
    for key, floor in floors.items():
        fields = [int(f) for f in floor.split()]
        live[key] = [f * 2 for f in fields[:-1]] + [fields[-1] // 4]
        write(root, "/proc/sys/" + key.replace(".", "/"), "\t".join(map(str, live[key])) + "\n")
    status, out, err = cli("plan", "--root", root, "--policy", name, "--format", "json")
    assert status == 0, err
    changes = {c["id"]: c for c in json.loads(out)["changes"]}
    for key, floor in floors.items():
        want = " ".join(map(str, live[key][:-1] + [int(floor.split()[-1])]))
        assert changes["sysctl.live:" + key]["desired"] == want
        assert changes["sysctl.persist:" + key]["desired"] == want     # what is written is what is persisted


# Block queue attributes: a deeper queue or a longer read-ahead than a policy's figure is kept
# (numatune.families.storage.settings.FLOOR_ATTRS says why max_sectors_kb and queue_depth stay exact).
def _block(name):
    return load([name], Root("/")).data.get("block", [])


@pytest.mark.parametrize("name", shipped_names())
def test_block_queue_sizes_are_floors(name):
    from numatune.families.storage.settings import FLOOR_ATTRS
    for i, rule in enumerate(_block(name)):
        for attr in FLOOR_ATTRS:
            if attr in rule:
                assert isinstance(rule[attr], dict) and "at_least" in rule[attr], \
                    "%s: block[%d].%s is set exactly; a queue size is a minimum" % (name, i, attr)


@pytest.mark.parametrize("name", shipped_names())
def test_a_block_device_above_the_figures_is_never_lowered(name, tmp_path, cli):
    """3PAR LUNs and their paths with every queue 4x the policies' floors: nothing is planned lower (a
    scheduler switch writes the host's own value back), and the udev rules keep them as floors."""
    from block_fixture import san_host
    from numatune.families.storage.settings import FLOOR_ATTRS
    floors = {attr: rule[attr]["at_least"] for rule in _block(name) for attr in FLOOR_ATTRS
              if isinstance(rule.get(attr), dict)}
    if not floors:
        pytest.skip("%s sets no block queue size" % name)
    root = san_host(tmp_path / "root")
    high = {}
    for queue in root.glob("sys/devices/**/queue"):
        for attr, floor in floors.items():
            high[attr] = str(floor * 4)
            (queue / attr).write_text(high[attr] + "\n")
    status, out, err = cli("plan", "--root", root, "--policy", name, "--format", "json")
    assert status == 0, err
    changes = json.loads(out)["changes"]
    queues = [c for c in changes if c["id"].startswith("block.live:") and c["id"].split(":")[-1] in floors]
    assert all(c["desired"] == c["current"] == high[c["id"].split(":")[-1]] for c in queues), \
        [(c["id"], c["current"], c["desired"]) for c in queues]
    rules = [c["desired"] for c in changes if c["id"].startswith("block.udev:")]
    for attr, floor in floors.items():
        assert not [r for r in rules if 'ATTR{queue/%s}="' % attr in r], rules  # no exact value at boot
        floor_run = "[ $$v -ge %d ] || echo %d > /sys$devpath/queue/%s'" % (floor, floor, attr)
        assert [r for r in rules if floor_run in r], rules
