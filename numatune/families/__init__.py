"""The knob families. Each module has the same small interface:

``NAME``            the key its facts live under
``POLICY``          the policy tables it declares (schema), optional ``check_policy``
``read(root, data)``   its facts (I/O, under the root)
``diff(data, facts)``  pure: yields Change, Finding and Compliant
``EDITORS``         pure file editors its persistent writes name

Apply and revert are the same for every family: a change is a list of writes
(a value, a file edit, a host command) that the appliers journal and undo.
Adding a family is one module and one line below.
"""
from numatune.families.storage import knob as block
from numatune.families.boot import cmdline, thp
from numatune.families.cpu import knob as cpu_power
from numatune.families.cpuset import knob as cpuset
from numatune.families.hugepages import knob as hugepages
from numatune.families.network import knob as net
from numatune.families.oracle import knob as oracle
from numatune.families.sysctl import knob as sysctl
from numatune.families.tuned import knob as tuned

FAMILIES = [sysctl, thp, hugepages, cmdline, cpu_power, cpuset, tuned, net, block, oracle]


EDITORS = {}
for _family in FAMILIES:
    EDITORS.update(_family.EDITORS)
