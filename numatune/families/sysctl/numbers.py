"""Whether the kernel would take a value for a sysctl that holds integers.

An integer sysctl (proc_dointvec and its kin: vm.swappiness, kernel.printk's
four fields) parses each word as an integer, in decimal or 0x-hex, and
refuses the write with EINVAL otherwise. Planned anyway, "60 -> abc" reads
like any other change and fails only at apply. The kernel does not say which
keys hold integers; one whose value is integers now is taken to, but for the
UTS names, strings that may happen to be digits."""
import re

from numatune.families.sysctl.minimum import fields

_INTEGER = re.compile(r"^[-+]?(?:0[xX][0-9a-fA-F]+|\d+)$")
# Strings the kernel keeps whatever they hold (a host named 1001 is still a host name).
STRINGS = frozenset(("kernel.hostname", "kernel.domainname"))


def refused(key, live, desired):
    """The first word of ``desired`` the kernel would refuse for ``key``, whose value is ``live``
    ("" for an empty value); None when it would take them all or ``key`` does not hold integers."""
    if key in STRINGS or fields(live) is None:
        return None
    words = str(desired).split()
    if not words:
        return ""
    return next((w for w in words if not _INTEGER.match(w)), None)


def refusal_text(word, desired):
    """What a finding says the kernel would refuse: the word alone when it is the whole value."""
    if not word:
        return "an empty value"
    if word == str(desired).strip():
        return repr(word)
    return "%r in %r" % (word, desired)
