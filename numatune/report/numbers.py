"""Big numbers for people: digit groups (``49,152``) and binary sizes
(``1 TiB``). Text output only: JSON and the values a plan writes keep the
kernel's own digits, so a reader can paste them back."""


def count(n):
    """``49152`` -> ``49,152``; a string of digits too; anything else as given."""
    if isinstance(n, bool):
        return str(n)
    if isinstance(n, int):
        return "{:,}".format(n)
    if isinstance(n, str) and n.isdigit():
        return "{:,}".format(int(n))
    return "?" if n is None else str(n)


_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB")


def size(nbytes):
    """``107374182400`` -> ``100 GiB``; one decimal only where it is not whole."""
    if nbytes is None:
        return "?"
    value, unit = float(nbytes), 0
    while value >= 1024 and unit < len(_UNITS) - 1:
        value /= 1024
        unit += 1
    text = "%d" % value if value == int(value) else "%.1f" % value
    return "%s %s" % (count(int(text)) if "." not in text else text, _UNITS[unit])


def size_kb(kb):
    return "?" if kb is None else size(int(kb) * 1024)
