"""numatune's own section of /etc/multipath.conf.

numatune edits only the lines between its two markers and keeps every other
byte of the file as it was. Its section is a ``devices { device { } }``
block for each array a [[block]] rule names; multipath-tools reads every
``devices`` section and lets later ``device`` entries override earlier ones
for the same vendor/product, so ours comes last.
"""
import re

PATH = "/etc/multipath.conf"
BEGIN = "# BEGIN numatune managed section (numatune apply/revert edit only these lines)"
END = "# END numatune managed section"
MULTIPATHD = ("/usr/sbin/multipathd", "/sbin/multipathd")


class ConfSyntaxError(ValueError):
    pass


def _value(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = str(value)
    # multipath.conf quotes values with blanks or regex characters.
    if re.match(r"^[A-Za-z0-9_.:/+-]+$", text):
        return text
    return '"%s"' % text.replace('"', '\\"')


def glob_regex(pattern):
    """A match glob ("V*", "HSV2?0") as the regex multipath.conf wants for
    vendor/product. multipath matches those unanchored, so "V*" written as
    it is would be "zero or more V": every device. A plain name stays as it
    is (an unanchored regex of letters matches what it always did)."""
    if re.fullmatch(r"[A-Za-z0-9_ -]+", pattern):
        return pattern
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and "]" in pattern[i + 2:] + pattern[i + 1:i + 2]:
            end = pattern.index("]", i + 2) if pattern[i + 1:i + 2] == "]" else pattern.index("]", i + 1)
            body = pattern[i + 1:end]
            out.append("[%s%s]" % ("^" + body[1:] if body.startswith("!") else body, ""))
            i = end
        else:
            out.append(re.escape(c) if not c.isalnum() else c)
        i += 1
    return "^%s$" % "".join(out)


def render_section(devices):
    """The managed block for [{"vendor", "product", "settings": {k: v}}]."""
    if not devices:
        return ""
    lines = [BEGIN, "devices {"]
    for dev in devices:
        lines.append("\tdevice {")
        lines.append('\t\tvendor "%s"' % dev["vendor"])
        lines.append('\t\tproduct "%s"' % dev["product"])
        for key in sorted(dev["settings"]):
            lines.append("\t\t%s %s" % (key, _value(dev["settings"][key])))
        lines.append("\t}")
    lines.append("}")
    lines.append(END)
    return "\n".join(lines) + "\n"


def _span(text):
    """(start, end) offsets of the managed block, end past its newline."""
    begin = text.find(BEGIN)
    if begin < 0:
        return None
    if begin > 0 and text[begin - 1] != "\n":
        raise ConfSyntaxError("numatune's BEGIN marker is not at the start of a line")
    end = text.find(END, begin)
    if end < 0:
        raise ConfSyntaxError("numatune's section has a BEGIN marker but no END marker")
    end += len(END)
    if text[end:end + 1] == "\n":
        end += 1
    return begin, end


def current_section(text):
    if text is None:
        return None
    span = _span(text)
    return text[span[0]:span[1]] if span else None


def set_section(text, devices):
    """Editor: ``text`` with numatune's section replaced by ``devices``
    (removed when empty); everything outside it unchanged."""
    if text is None:
        return None  # multipath is not configured: the plan says so, nothing to edit
    block = render_section(devices)
    span = _span(text)
    if span:
        return text[:span[0]] + block + text[span[1]:]
    if not block:
        return text
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + block


def _tokens(text):
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        for tok in re.findall(r'"(?:[^"\\]|\\.)*"|[{}]|[^\s{}"]+', line):
            yield tok[1:-1] if tok.startswith('"') else tok
        yield "\n"


def parse_devices(text):
    """[{"vendor", "product", "settings"}] of every device entry in ``text``."""
    out, stack, cur, line = [], [], None, []
    for tok in _tokens(text or ""):
        if tok == "\n":
            if cur is not None and len(stack) == 2 and line:
                key, value = line[0], " ".join(line[1:])
                if key in ("vendor", "product"):
                    cur[key] = value
                else:
                    cur["settings"][key] = value
            line = []
            continue
        if tok == "{":
            name = line[0] if line else ""
            stack.append(name)
            if stack == ["devices", "device"]:
                cur = {"vendor": None, "product": None, "settings": {}}
            line = []
        elif tok == "}":
            if not stack:
                raise ConfSyntaxError("unbalanced '}'")
            if stack == ["devices", "device"] and cur is not None:
                out.append(cur)
                cur = None
            stack.pop()
            line = []
        else:
            line.append(tok)
    if stack:
        raise ConfSyntaxError("unclosed section %r" % stack[-1])
    return out


def multipath_section(text, devices):
    """The editor the [[block]] family names."""
    return set_section(text, devices)
