"""The "at least" form of a sysctl rule: a floor that never lowers a host's
value, compared field by field for tcp_rmem/tcp_wmem (the plan cases hold
the whole plan: tests/cases/sysctl/at-least-*)."""
import json

import pytest

from conftest import write
from numatune.families.sysctl import minimum
from numatune.families.tuned import conflicts as tc


@pytest.mark.parametrize("have,floor,meets,raised", [
    ("4194304", "1048576", True, "4194304"),
    ("262144", "1048576", False, "1048576"),
    ("4096 131072 33554432", "4096 87380 16777216", True, "4096 131072 33554432"),
    ("4096 16384 4194304", "4096 16384 16777216", False, "4096 16384 16777216"),
    # Only the field below moves: the higher default stays.
    ("4096 262144 8388608", "4096 87380 16777216", False, "4096 262144 16777216"),
    ("4096 87380", "4096 87380 16777216", None, None),
    ("never", "1", None, None),
])
def test_floor_field_by_field(have, floor, meets, raised):
    assert minimum.meets(have, floor) is meets
    assert minimum.raised(have, floor) == raised


def _root(tmp_path, **live):
    root = tmp_path / "root"
    for key, value in live.items():
        write(root, "/proc/sys/" + key.replace("__", "/"), value + "\n")
    return root


def _plan(cli, root, *policies):
    args = ["plan", "--root", root, "--format", "json"]
    for p in policies:
        args += ["--policy", p]
    status, out, err = cli(*args)
    assert status == 0, err
    return json.loads(out)


def test_the_value_written_is_the_value_persisted(tmp_path, cli):
    root = _root(tmp_path, net__ipv4__tcp_rmem="4096\t262144\t8388608")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"net.ipv4.tcp_rmem" = { at_least = "4096 87380 16777216" }\n')
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status == 0, out + err
    assert (root / "proc/sys/net/ipv4/tcp_rmem").read_text().split() == ["4096", "262144", "16777216"]
    assert "net.ipv4.tcp_rmem = 4096 262144 16777216\n" in (root / "etc/sysctl.d/90-numatune.conf").read_text()
    assert _plan(cli, root, policy)["changes"] == []


def test_value_and_at_least_together_is_one_clear_line(tmp_path, cli):
    root = _root(tmp_path, net__core__wmem_max="4194304")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"net.core.wmem_max" = { value = 1, at_least = 2 }\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert status == 2 and "Traceback" not in err
    assert "p.toml:2: sysctl.net.core.wmem_max needs exactly one of value and at_least" in err
    bad = write(tmp_path, "q.toml", '[sysctl]\n"net.ipv4.tcp_rmem" = { at_least = "4096 lots" }\n')
    status, out, err = cli("plan", "--root", root, "--policy", bad)
    assert status == 2 and "at_least takes an integer or integers" in err


def test_a_later_policy_replaces_the_entry_whole(tmp_path, cli):
    """A site policy's at_least replaces a shipped value (and back): the
    entries do not merge into one holding both."""
    root = _root(tmp_path, net__core__wmem_max="4194304")
    base = write(tmp_path, "base.toml", '[sysctl]\n"net.core.wmem_max" = { value = 1048576, why = "exact" }\n')
    site = write(tmp_path, "site.toml", '[policy]\nextends = ["base.toml"]\n'
                                        '[sysctl]\n"net.core.wmem_max" = { at_least = 1048576 }\n')
    plan = _plan(cli, root, site)
    assert [c["id"] for c in plan["changes"]] == ["sysctl.persist:net.core.wmem_max"]
    assert plan["changes"][0]["desired"] == "4194304"
    assert plan["policy"]["sysctl"]["net.core.wmem_max"] == {"at_least": 1048576}
    # And the other way round: the later file's exact value wins.
    plan = _plan(cli, root, site, base)
    assert plan["changes"][0]["desired"] == "1048576"


def test_fields_that_cannot_be_compared_are_a_finding(tmp_path, cli):
    root = _root(tmp_path, net__ipv4__tcp_rmem="4096 87380 6291456")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"net.ipv4.tcp_rmem" = { at_least = 1048576 }\n')
    plan = _plan(cli, root, policy)
    assert plan["changes"] == []
    assert [f["id"] for f in plan["findings"]] == ["sysctl.not-comparable:net.ipv4.tcp_rmem"]


def test_tuned_raising_past_the_floor_is_no_conflict():
    assert not tc._below_floor(">16777216", "4194304")
    assert not tc._below_floor("16777216", "4194304")
    assert tc._below_floor("262144", "4194304")
    assert tc._below_floor("<262144", "4194304")
