"""What the families' ``facts_lines`` share: wrapped ``label: text`` lines
and members that share a description folded into one entry with their names
as ranges (``sdb-sdq``), like the plan groups targets, so `numatune facts`
on a host with 4,096 SCSI paths stays readable at 80 columns. The JSON form
(``--format json``) keeps every member and every field."""
import textwrap

from numatune.report.grouped import clean, elide, ranges
from numatune.report.numbers import count

WIDTH = 79
# Groups shown per section; a host with more says how many it left out.
MAX_GROUPS = 24
# Characters of folded names shown per group (about two lines).
NAMES = 140


def line(text, indent=2, hang=4):
    """``text`` wrapped at 80 columns, continuation lines indented further."""
    text = clean(text)
    if len(text) + indent <= WIDTH:
        return [" " * indent + text]
    return textwrap.wrap(text, WIDTH, initial_indent=" " * indent, subsequent_indent=" " * (indent + hang),
                         break_on_hyphens=False) or [" " * indent]


def listing(label, items, indent=2):
    """``label: a, b, c`` on one line, or the label and one item a line
    (paths are not broken inside; one too long for a line is cut in the middle)."""
    text = "%s: %s" % (label, ", ".join(items))
    if len(text) + indent <= WIDTH:
        return [" " * indent + clean(text)]
    return [" " * indent + clean(label) + ":"] + [" " * (indent + 2) + elide(i, WIDTH - indent - 2) for i in items]


def names(members, limit=NAMES):
    """Names folded into ranges; a list longer than ``limit`` cut in the middle."""
    return elide(", ".join(ranges(members)), limit)


def fold(items, key):
    """[(key value, [names])] for ``{name: item}``, in first-appearance order."""
    groups = {}
    for name, item in items.items():
        groups.setdefault(key(item), []).append(name)
    return list(groups.items())


def capped(groups, what):
    """The first MAX_GROUPS groups, and a line for the rest (or None)."""
    if len(groups) <= MAX_GROUPS:
        return groups, None
    rest = sum(len(members) for _, members in groups[MAX_GROUPS:])
    return groups[:MAX_GROUPS], "  ... %s more %s in %s more groups (--format json has them all)" % (
        count(rest), what, count(len(groups) - MAX_GROUPS))


def plural(n, word, many=None):
    return "%s %s" % (count(n), word if n == 1 else (many or word + "s"))
