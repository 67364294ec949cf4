"""The network family builds each IRQ's affinity change with its fields given by position (a many-NIC
plan makes 2,300 of them: #38); that change is the one the fields given by name make, field for field."""
from numatune.families.network.knob import _irq_change
from numatune.model import Change, Write, names_of


def test_an_irq_change_by_position_is_the_change_by_name():
    by_name = Change(id="net.irq:eth0:130", area="network", target="eth0 IRQ 130", current="0-3", desired="5",
                     scope="live", rule="net[0]", why="local", action="write /proc/irq/130/smp_affinity_list",
                     boot_key="net.irq:eth0",
                     writes=[Write(kind="value", path="/proc/irq/130/smp_affinity_list", value="5", format="plain")])
    got = _irq_change("eth0", "130", "0-3", "5", "net[0]", "local", "net.irq:eth0")
    assert got == by_name
    # Every field, also those == leaves out (none today), and in the order to_json gives them.
    assert [getattr(got, n) for n in names_of(Change)] == [getattr(by_name, n) for n in names_of(Change)]
    assert list(got.to_json()) == list(by_name.to_json()) and got.to_json() == by_name.to_json()


def test_the_fields_given_by_position_are_the_records_own_order():
    # A field added or moved in Change or Write must move here too: the test above fails then, and so
    # does this one, naming the order _irq_change assumes.
    assert names_of(Change) == ("id", "area", "target", "current", "desired", "scope", "action", "why",
                                "reboot_required", "restart_required", "risk", "rule", "writes", "needs_confirm",
                                "family", "partial_ok", "running_ok", "drift_severity", "boot_key")
    assert names_of(Write)[:4] == ("kind", "path", "value", "format")
