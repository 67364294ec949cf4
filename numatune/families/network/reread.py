"""The network facts after apply's writes, from the plan's (verify).

The costly part of a giant host's network facts that no write changes is
``/proc/interrupts``: 22 MB on 480 CPUs, parsed for which IRQs serve each
NIC and how often each CPU took them. The writes set IRQ affinity, MTU,
ethtool groups and files; none of them numbers an IRQ, and the counts are
the kernel's tally, which a write does not move. So the NICs' IRQs and
counts are the plan's, and everything else is read again: affinity,
ethtool, MTU, persistence. A NIC whose vectors are not as planned (a
channel count that reallocated them), or whose IRQs were found by name in
/proc/interrupts, and any host tool run read the facts whole.
"""
from numatune.families.network import knob


def reread(root, data, planned, ops):
    """knob.read(root, data) after ``ops``, or None when their IRQs may not be the plan's."""
    interfaces = planned.get("interfaces")
    if not interfaces or any(op.get("argv") for op in ops):
        return None
    known = {}
    for info in interfaces.values():
        for irq, state in (info.get("irqs") or {}).items():
            known[irq] = {"counts": state["counts"], "name": ""}
    got = knob.read(root, data, interrupts=known)
    for name, info in got["interfaces"].items():
        if "irqs" not in info:
            continue
        was = interfaces.get(name) or {}
        if "irqs" not in was or was["msi_irqs"] != info["msi_irqs"] or set(was["irqs"]) != set(info["irqs"]) \
                or (info["irqs"] and not info["msi_irqs"]):
            return None
    return got
