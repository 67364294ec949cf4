"""A plan saved on one host and applied on another (issue #37) is refused
with what it was made for, not as a drift of this host."""
import shutil
import sys

import pytest

from conftest import REPO, tree_digest

sys.path.insert(0, str(REPO / "bench"))
from make_host import make_host  # noqa: E402


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    root = tmp_path_factory.mktemp("small") / "root"
    make_host(str(root), sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=1, queues=1, instances=1, procs=10)
    return root


def test_a_plan_for_another_host_names_that_host(cli, small, tmp_path):
    made, other = tmp_path / "made", tmp_path / "other"
    shutil.copytree(small, made, symlinks=True)
    shutil.copytree(small, other, symlinks=True)
    (other / "proc/sys/kernel/hostname").write_text("db02.example.com\n")
    (other / "proc/sys/kernel/numa_balancing").write_text("0\n")  # drifted too: the host is what is said
    saved = tmp_path / "plan.json"
    assert cli("plan", "--root", made, "--out", saved)[0] == 0
    before = tree_digest(other)
    status, out, err = cli("apply", "--root", other, "--plan", saved, "--yes")
    assert status == 2 and tree_digest(other) == before
    assert "this plan was made for sdx-db01.example.com:%s" % made in err, err
    assert "not for db02.example.com:%s" % other in err and "drifted" not in err
    # The same host (a copy of it) still applies, and a drift there is still a drift.
    assert cli("apply", "--root", made, "--plan", saved, "--yes")[0] == 0
