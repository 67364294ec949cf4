"""Files of ``key = value`` lines: sysctl.d files and numatune's own boot
file (numatune.facts.bootfile) are edited the same way, by ``set_key``.

Pure and free of the apply package: the plan imports the editors (their
records name them), and the plan never loads numatune.apply.
"""


def set_key(text, key, value, key_of, header=""):
    """``text`` with ``key = value`` in place of the first line for ``key``
    (later lines for it dropped, so the file says it once), appended when
    no line has it. ``key_of(line)`` is the key a line sets, or None for a
    comment or a line of another shape; ``header`` starts a new file
    (``text`` None)."""
    lines = (text if text is not None else header).splitlines(True)
    out, done = [], False
    for line in lines:
        if key_of(line) == key:
            if not done:
                out.append("%s = %s\n" % (key, value))
                done = True
            continue
        out.append(line)
    if not done:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append("%s = %s\n" % (key, value))
    return "".join(out)
