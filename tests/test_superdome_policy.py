"""The shipped superdome-oracle policy: extends oracle-numa, says why for
every rule (the paper's measured effect), plans on a 3PAR SAN host, and
leaves the switch-dependent settings (MTU 9000, 802.3ad, rx-usecs 0, udp4
sdfn) out."""
import json
from pathlib import Path

from block_fixture import san_host
from numatune.policy.stack import load
from numatune.root import Root

POLICY = Path(__file__).resolve().parents[1] / "policies" / "superdome-oracle.toml"


def test_it_extends_oracle_numa_and_every_rule_says_why(tmp_path):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    data = load(["superdome-oracle"], Root(str(root))).data
    assert data["kernel"]["transparent_hugepage"] == "never"      # from oracle-numa
    assert data["cpu"]["governor"] == "performance" and data["cpu"]["max_cstate"] == 1
    assert "+80% TPM" in data["cpu"]["why"]
    for rule in data["block"]:
        assert rule["why"].strip()
    for key, spec in data["sysctl"].items():
        assert isinstance(spec, dict) and spec["why"].strip(), key
    assert data["sysctl"]["net.core.rmem_max"]["value"] == 16777216
    # Opt-in only: nothing that needs the switches to agree.
    assert "net" not in data and "bond" not in data
    text = POLICY.read_text()
    for opt_in in ("MTU 9000", "802.3ad", "rx-usecs 0", "udp4 sdfn"):
        line = next(l for l in text.splitlines() if opt_in in l)
        assert line.lstrip().startswith("#"), line


def test_it_plans_the_3par_queues_on_a_san_host(tmp_path, cli):
    root = tmp_path / "root"
    san_host(root, luns=1, paths=2)
    (root / "sys/block/sdb/device/queue_depth").write_text("16\n")  # an HBA driver's lower default
    status, out, err = cli("plan", "--root", root, "--policy", "superdome-oracle", "--format", "json")
    assert status == 0, err
    ids = {c["id"]: c for c in json.loads(out)["changes"]}
    assert ids["block.live:sdb:nomerges"]["desired"] == "1"
    assert ids["block.live:sdb:queue_depth"]["desired"] == "32"
    assert "+80% TPM" in ids["block.live:sdb:queue_depth"]["why"]
    assert not [c for c in ids if ":sda:" in c]  # the boot disk is left alone
