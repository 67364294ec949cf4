"""`numatune boot` on the guest's kernel (issue #24): the live-only IRQ
affinity an apply kept in /etc/numatune/boot-replay.json is planned again
and written by `numatune boot` once the IRQs are back where a boot leaves
them. (The guest's IRQ numbers are the same at each boot; tests/
test_boot_replay.py renumbers them on fixture roots.)"""
import json
from pathlib import Path

from labkit import guest_only, numatune, policy_file, read
from test_lab_network import expand, lab_nic, nic_irqs

pytestmark = guest_only
REPLAY = Path("/etc/numatune/boot-replay.json")


def test_boot_sets_the_nics_irqs_again_after_a_reset(tmp_path):
    """apply irq_affinity, reset the IRQs to every CPU (as a boot does), `numatune boot`: they are on node 1
    again, in a transaction of its own; check says the boot unit keeps them; two reverts leave the host as it was."""
    name = lab_nic()
    irqs = [i for i in nic_irqs(name) if Path("/proc/irq/%s/smp_affinity_list" % i).exists()]
    assert irqs

    def affinity():
        return {i: read("/proc/irq/%s/smp_affinity_list" % i) for i in irqs}

    def reset():
        for i in irqs:
            Path("/proc/irq/%s/smp_affinity_list" % i).write_text("0-3")
    reset()
    before = affinity()
    had_replay = REPLAY.exists()
    policy = policy_file(tmp_path, '[[net]]\nmatch = { name = "%s" }\nirq_affinity = "local-node"\n' % name)
    status, out, err = numatune("apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    reverts = 1
    try:
        applied = affinity()
        node1 = set(expand(read("/sys/devices/system/node/node1/cpulist")))
        assert all(set(expand(v)) <= node1 for v in applied.values()), applied
        assert json.loads(REPLAY.read_text())["families"]["network"]["keys"] == ["net.irq:%s" % name]
        reset()
        status, out, err = numatune("boot")
        assert status == 0, out + err
        reverts += 1
        assert affinity() == applied
        assert out.count("net.irq:%s, transaction" % name) == len(irqs), out
        report = json.loads(numatune("check", "--policy", policy, "--format", "json")[1])
        kept = {r["id"]: r["persisted_by"] for r in report["results"] if r["id"].startswith("net.irq:")}
        assert kept and all(by.startswith("numatune-boot.service") for by in kept.values()), kept
    finally:
        for _ in range(reverts):
            rstatus, rout, rerr = numatune("revert", "--last")
            assert rstatus == 0, rout + rerr
    assert affinity() == before
    assert REPLAY.exists() == had_replay
