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
