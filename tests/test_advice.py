"""The papers' host-level advice comes from the host alone, and only where
it applies: several nodes, nothing already placing interrupts, no per-node
listeners asked for (tests/cases/advice holds the host that gets all three)."""
import json
import shutil
from pathlib import Path

from conftest import write

CASE = Path(__file__).parent / "cases" / "advice" / "two-nodes-one-listener"


def _findings(cli, root, policy):
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0, err
    return {f["id"]: f for f in json.loads(out)["findings"] if f["id"].startswith("advice.")}


def _host(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(CASE / "root", root, symlinks=True)
    return root


def test_each_piece_of_advice_cites_the_paper_and_its_figure(tmp_path, cli):
    found = _findings(cli, _host(tmp_path), CASE / "policy.toml")
    assert "25% TPM" in found["advice.one-listener"]["why"]
    assert "86% more single UDP_RR" in found["advice.mtu"]["why"]
    assert "as much as 20%" in found["advice.irqbalance"]["why"]
    assert all("001_211b0b645b2f1cc8.txt" in f["why"] for f in found.values())


def test_a_one_node_host_gets_none(tmp_path, cli):
    root = _host(tmp_path)
    write(root, "/sys/devices/system/node/online", "0\n")
    shutil.rmtree(root / "sys/devices/system/node/node1")
    assert _findings(cli, root, CASE / "policy.toml") == {}


def test_what_the_host_or_policy_already_does_silences_it(tmp_path, cli):
    root = _host(tmp_path)
    write(root, "/etc/systemd/system/multi-user.target.wants/irqbalance.service", "")
    write(root, "/proc/4343/comm", "tnslsnr\n")             # a second listener
    policy = write(tmp_path, "p.toml", '[[net]]\nmatch = { name = "eth0" }\nmtu = 9000\n')
    found = _findings(cli, root, policy)
    assert found == {}, found
