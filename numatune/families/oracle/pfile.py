"""Text parameter files (init<SID>.ora): parse, and edit one parameter in
place while every other line stays byte for byte.

Forms handled: ``name=value``, ``*.name=value``, ``SID.name=value``, spaces
around '=', quoted values and lists (``'a','b'`` or ``(a, b)``), trailing
``# comments``, and entries continued over lines (a trailing backslash, or a
quote or parenthesis left open). A SID-specific entry wins over ``*.`` and
bare ones whatever their order, as in Oracle; otherwise the last one wins.
"""
import re

ENTRY_RE = re.compile(r"^\s*(?:([A-Za-z0-9_$#]+|\*)\.)?(_{0,2}[A-Za-z][A-Za-z0-9_#$]*)(\s*=\s*)(.*)$", re.S)


def split_comment(text):
    """(value, comment) with the comment from the first '#' outside quotes."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return text[:i].rstrip(), text[i:]
    return text.rstrip(), ""


def _open(text):
    """True while a quote or parenthesis is still open."""
    quote, depth = None, 0
    for ch in split_comment(text)[0]:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
    return quote is not None or depth > 0


def parse_line(text):
    """One logical entry -> (sid, name, sep, value, comment), or None."""
    m = ENTRY_RE.match(text)
    if not m:
        return None
    value, comment = split_comment(m.group(4).rstrip("\r\n"))
    return m.group(1), m.group(2), m.group(3), value.strip(), comment


def parse(text):
    """Entries of a pfile: dicts with 1-based ``line``/``end``, ``sid`` (None,
    '*' or a SID), ``name``, ``value`` (raw, as written) and ``comment``."""
    lines = (text or "").splitlines(True)
    entries = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        first = i
        logical = lines[i].rstrip("\r\n")
        # A value may go on over several lines; stop at the file's end or 50 lines.
        while i + 1 < len(lines) and i - first < 50 and (logical.endswith("\\") or _open(logical)):
            logical = (logical[:-1] if logical.endswith("\\") else logical + " ") + lines[i + 1].strip()
            i += 1
        parsed = parse_line(logical)
        if parsed:
            sid, name, _, value, comment = parsed
            entries.append({"line": first + 1, "end": i + 1, "sid": sid, "name": name, "value": value,
                            "comment": comment})
        i += 1
    return entries


def effective(entries, sid):
    """{lower-case name: entry} in force for ``sid``."""
    generic, own = {}, {}
    for e in entries:
        key = e["name"].lower()
        if e["sid"] is None or e["sid"] == "*":
            generic[key] = e
        elif sid != "*" and e["sid"].upper() == sid.upper():
            own[key] = e
    return {**generic, **own}


def spfile_pointer(entries):
    """The SPFILE= target when that is what the pfile holds, else None."""
    named = [e for e in entries if e["name"].lower() == "spfile"]
    if named:
        return named[-1]["value"].strip("'\"")
    return None


def set_value(text, name, value, sid="*"):
    """Editor: ``name`` set to the rendered ``value`` for ``sid``; every other
    line byte for byte. The entry in force is replaced in place (its prefix,
    spacing and comment kept); a missing one is appended in the file's style."""
    text = text or ""
    lines = text.splitlines(True)
    entries = parse(text)
    current = effective(entries, sid).get(name.lower())
    if current is not None:
        first = lines[current["line"] - 1]
        last = lines[current["end"] - 1]
        ending = last[len(last.rstrip("\r\n")):] or "\n"
        m = ENTRY_RE.match(first.rstrip("\r\n"))
        head = first[:m.start(4)]
        comment = (" " + current["comment"]) if current["comment"] else ""
        lines[current["line"] - 1:current["end"]] = [head + value + comment + ending]
        return "".join(lines)
    prefixed = [e for e in entries if e["sid"]]
    if sid != "*" and any(e["sid"] != "*" for e in prefixed):
        prefix = sid + "."           # a shared (RAC) pfile: touch only this instance
    elif prefixed:
        prefix = "*."
    else:
        prefix = ""
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines.append("%s%s=%s\n" % (prefix, name, value))
    return "".join(lines)
