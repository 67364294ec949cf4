"""`numatune facts --format policy` (issue #37): the host as it is, as a
policy that `plan` on the same host reports as no changes: on every capture
in tests/data, and on a host whose sysctl.d files set what is live."""
import json
import shutil
import sys

import pytest

from conftest import CAPTURES, REALDATA, REPO

sys.path.insert(0, str(REPO / "bench"))
from make_host import make_host  # noqa: E402


def _round_trip(cli, root, tmp_path):
    status, text, err = cli("facts", "--root", root, "--format", "policy")
    assert status == 0, err
    policy = tmp_path / "host.toml"
    policy.write_text(text)
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return text, json.loads(out)


@pytest.mark.parametrize("name", sorted(CAPTURES) + ["this-vm"])
def test_every_capture_plans_its_own_policy_as_no_changes(cli, capture, name, tmp_path):
    root = tmp_path / "vm" if name == "this-vm" else capture(name)
    if name == "this-vm":
        shutil.copytree(REALDATA / "this-vm", root, symlinks=True)
    text, plan = _round_trip(cli, root, tmp_path)
    assert plan["changes"] == [], (text, plan["changes"][:3])


def test_a_tuned_host_says_what_it_keeps(cli, tmp_path):
    root = tmp_path / "host"
    make_host(str(root), sockets=2, nodes=2, cpus=8, luns=2, paths=2, nics=1, queues=1, instances=1, procs=10)
    # Live and at boot the same (the preinstall file's value), and one the next boot would change.
    (root / "proc/sys/net/core/rmem_max").write_text("4194304\n")
    (root / "proc/sys/kernel/shmmni").write_text("4095\n")
    text, plan = _round_trip(cli, root, tmp_path)
    assert plan["changes"] == []
    assert '"net.core.rmem_max" = 4194304' in text or "net.core.rmem_max = 4194304" in text, text
    assert "kernel.shmmni" not in text, text
    assert "[policy]" in text and "host-as-is" in text
