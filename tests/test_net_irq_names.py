"""A NIC's IRQs found by name in /proc/interrupts: the one-pass index finds what the per-NIC pattern finds."""
from hypothesis import given, settings, strategies as st

from numatune.families.network.interrupts import irqs_by_name, named_irqs, nic_irqs

_PIECES = ["eth0", "eth1", "ens1f0", "bond0", "-", "_", "@", ":", ",", " ", "\t", "TxRx", "rx", "0", "1",
           "mlx5_comp3", "pci", "eth0-", "eth0@", "eth0_", "eth0:", "\u00a0", "e"]
_NAMES = ["eth0", "eth1", "ens1f0", "e", "eth0-TxRx", "mlx5_comp3", "rx", "eth0@pci", "a b", "a,b", "TxRx-0"]


@settings(max_examples=300)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join), max_size=6), st.sampled_from(_NAMES))
def test_the_index_finds_what_the_pattern_finds(lines, name):
    interrupts = {str(100 + i): {"name": text, "counts": []} for i, text in enumerate(lines)}
    info = {"name": name, "msi_irqs": [], "legacy_irq": None}
    want = sorted(set(named_irqs(name, interrupts)), key=int)
    assert nic_irqs(info, interrupts, []) == want
    assert nic_irqs(info, interrupts) == want


def test_a_name_is_a_word_whole_or_before_a_separator():
    interrupts = {"30": {"name": "eth0-TxRx-0"}, "31": {"name": "xeth0-rx"}, "32": {"name": "eth0"},
                  "33": {"name": "pci, eth0@tx"}, "34": {"name": "eth01"}}
    assert sorted(irqs_by_name(interrupts)["eth0"], key=int) == ["30", "32", "33"]
