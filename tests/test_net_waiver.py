"""A finding with no policy key of its own (net.irq_skew: one node serves the NIC interrupts) is waived by its
id, as a site with one listener NIC does (the real-boot lab's policy, tests/lab/realboot/steps/boot1.sh)."""
import json

from conftest import write
from test_net_plan import CAPTURE, POLICY, build

WAIVER = """
[[waiver]]
rule = "net.irq_skew"
reason = "one listener NIC"
expires = "2999-12-31"
"""


def test_the_irq_skew_finding_is_waived_by_its_id(capture, tmp_path, cli):
    root = build(capture(CAPTURE))
    status, out, err = cli("check", "--root", root, "--policy", write(tmp_path, "net.toml", POLICY + WAIVER),
                           "--format", "json")
    results = {r["id"]: r for r in json.loads(out)["results"]}
    skew = results["net.irq_skew"]
    assert (skew["state"], skew["severity"], skew["policy_key"]) == ("waived", "info", ""), err
    assert skew["waiver"]["reason"] == "one listener NIC" and "waived until 2999-12-31" in skew["message"]
    assert "waiver:net.irq_skew" not in results  # it matched: no "matches no drift" note
