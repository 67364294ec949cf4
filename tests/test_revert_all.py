"""The way back (issue #37): `numatune revert --all` brings a host that saw
several applies back byte for byte to before the first, shown as a plan
before it writes, asking unless --yes."""
import re

import pytest

from conftest import tree_digest

POLICIES = ['[sysctl]\n"kernel.numa_balancing" = 0\n',
            '[sysctl]\n"kernel.numa_balancing" = 0\n"vm.zone_reclaim_mode" = 0\n',
            '[sysctl]\n"vm.zone_reclaim_mode" = 1\n"vm.swappiness" = 10\n']


@pytest.fixture
def root(capture):
    r = capture("16amd64-4n4c-cgroup-distance-merge")
    for key, v in (("kernel/numa_balancing", "1"), ("vm/zone_reclaim_mode", "1"), ("vm/swappiness", "60")):
        (r / "proc/sys" / key).parent.mkdir(parents=True, exist_ok=True)
        (r / "proc/sys" / key).write_text(v + "\n")
    return r


def _applies(cli, root, tmp_path):
    txids = []
    for i, text in enumerate(POLICIES):
        policy = tmp_path / ("p%d.toml" % i)
        policy.write_text(text)
        status, out, err = cli("apply", "--root", root, "--policy", policy, "--yes")
        assert status == 0, err
        txids.append(re.search(r"^transaction (\S+): ", out, re.M).group(1))
    return txids


def test_revert_all_goes_back_to_before_the_first_apply(cli, root, tmp_path):
    before = tree_digest(root)
    txids = _applies(cli, root, tmp_path)
    assert tree_digest(root) != before
    status, out, err = cli("revert", "--all", "--root", root, "--yes")
    assert status == 0, err
    assert tree_digest(root) == before
    # Shown first: every transaction to undo, newest first, then each result.
    shown = out.split("\n\n")[0]
    assert [t for t in re.findall(r"^  (\S+)", shown, re.M) if t in txids] == txids[::-1], out
    assert "before %s" % txids[0] in shown
    for txid in txids:
        assert "transaction %s:" % txid in out
    status, out, err = cli("revert", "--all", "--root", root, "--yes")
    assert status == 2 and "nothing to revert" in err


def test_revert_all_asks_first_and_writes_nothing_unanswered(cli, root, tmp_path):
    _applies(cli, root, tmp_path)
    after = tree_digest(root)
    status, out, err = cli("revert", "--all", "--root", root)
    assert status == 2 and "--yes" in err
    assert tree_digest(root) == after
    assert cli("revert", "--all", "--last", "--root", root)[0] == 2
