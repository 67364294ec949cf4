"""The plan's changes for a person: one why per rule, with the targets that
share a current and desired value grouped under it (``sdb-sdq``), so 60
devices changed by one rule read as one entry, not 60 (``--verbose`` prints
each change in full; the JSON is never grouped)."""
import re

WIDTH = 79

_DIGITS = re.compile(r"^(.*?)(\d+)$")
# C0 controls but tab, DEL and C1: what a terminal would act on; lone surrogates (a host byte that is not
# UTF-8, kept by surrogateescape) and the non-characters U+FFFE/U+FFFF, which no UTF-8 writer, XML parser
# or Prometheus label accepts.
# Its text, compiled by re's cache when first searched: most runs print only printable ASCII (clean's
# quick path), and its ranges cost half a millisecond to compile at every start.
_CONTROL = "[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]"
# Names that count in letters: sda..sdz, sdaa..; vda, xvda, hda; multipathd's mpatha..
_LETTERS = re.compile(r"^(sd|vd|xvd|hd|mpath)([a-z]+)$")


def clean(text):
    """Host bytes and journal fields as visible escapes (\\x1b, \\n): an
    escape sequence in a sysfs file, a cmdline or a forged journal must not
    repaint or hide what the reviewer reads, nor break a report's parser
    (JUnit XML, a Nagios status line, a Prometheus label)."""
    text = str(text)
    if is_clean(text):
        return text
    return re.sub(_CONTROL, _escape, text)


def is_clean(text):
    """Whether ``clean`` leaves the string ``text`` as it is: one search over
    many texts joined, where a giant host's revert would clean 35,000 lines
    (and two values in each) one by one."""
    # Printable ASCII (most of a plan: 16,000 texts on a many-NIC host) holds none of them: two C
    # tests, not a search.
    return text.isascii() and text.isprintable() or not re.search(_CONTROL, text)


def _escape(match):
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return "\\x%02x" % (code - 0xDC00)  # the host's byte, as surrogateescape kept it
    return ("\\x%02x" if code < 0x100 else "\\u%04x") % code


# The one arrow of every "current -> desired" (ASCII: RHEL consoles under LANG=C print it too).
ARROW = "->"
# The one spelling of a severity in text: the plan, check, apply and the review screen.
SEVERITY = {"critical": "CRITICAL", "warning": "WARNING", "info": "INFO"}


def value(v):
    """The one rendering of a value: ``(unset)`` for none, ``""`` for empty."""
    if v is None:
        return "(unset)"
    if v == "":
        return '""'
    return clean(v)


def elide(text, width, middle=True):
    """``text`` cut to ``width``; in the middle by default: the end of a long
    value (a udev rule's assignment, a file's key) says most about it."""
    text = clean(text)
    if len(text) <= width:
        return text
    if not middle:
        return text[:max(width - 3, 1)] + "..."
    head = max((width - 3) * 2 // 5, 1)
    return text[:head] + "..." + text[len(text) - max(width - 3 - head, 1):]


def _letters_to_int(s):
    n = 0
    for ch in s:
        n = n * 26 + (ord(ch) - 96)
    return n


def _sequence_key(name, _memo={}):
    """(family of names, position in it) for names that form ranges, else None.
    Memoized: a giant host's plan folds each of 5,000 device names once per attribute."""
    try:
        return _memo[name]
    except KeyError:
        pass
    if len(_memo) > 100000:
        _memo.clear()
    key = _memo[name] = _sequence_key_of(name)
    return key


def _sequence_key_of(name):
    m = _LETTERS.match(name)
    if m:
        return ("L", m.group(1)), _letters_to_int(m.group(2))
    m = _DIGITS.match(name)
    if m and not (len(m.group(2)) > 1 and m.group(2).startswith("0")):
        return ("D", m.group(1)), int(m.group(2))
    return None


def ranges(names):
    """Names with runs folded: ``sdb, sdc, ..., sdq`` -> ``sdb-sdq``; ``dm-0 ..
    dm-15`` -> ``dm-0..dm-15`` (``..`` where a name holds a dash). Order of
    first appearance is kept between runs."""
    out, seen, runs = [], set(), {}
    keyed = []
    for name in names:
        if name in seen:
            continue
        seen.add(name)
        key = _sequence_key(name)
        keyed.append((name, key))
        if key:
            runs.setdefault(key[0], []).append((key[1], name))
    done = set()
    for name, key in keyed:
        if key is None:
            out.append(name)
            continue
        if key[0] in done:
            continue
        done.add(key[0])
        members = sorted(runs[key[0]])
        start = prev = members[0]
        for item in members[1:] + [None]:
            if item is not None and item[0] == prev[0] + 1:
                prev = item
                continue
            if start is prev:
                out.append(start[1])
            else:
                sep = ".." if "-" in start[1] + prev[1] else "-"
                out.append("%s%s%s" % (start[1], sep, prev[1]))
            if item is not None:
                start = prev = item
    return out


def targets_text(targets):
    """``dm-0 queue/nr_requests, dm-1 queue/nr_requests`` -> ``dm-0..dm-1
    queue/nr_requests``: targets of the form "<device> <attribute>" are
    grouped by attribute, the devices folded into ranges."""
    by_tail, order = {}, []
    for t in targets:
        head, sep, tail = t.partition(" ")
        if not sep or "/" in head or ":" in head:
            head, tail = t, ""
        if tail not in by_tail:
            by_tail[tail] = []
            order.append(tail)
        by_tail[tail].append(head)
    parts = []
    for tail in order:
        heads = ", ".join(ranges(by_tail[tail]))
        parts.append(heads + (" " + tail if tail else ""))
    return "; ".join(parts)


def flags(c):
    out = [f for f, on in (("reboot", c.reboot_required), ("restart", c.restart_required)) if on]
    if c.risk != "low":
        out.append("risk " + c.risk)
    return out


def groups(changes):
    """[(rule, why, [[change, ...] per (scope, current, desired, flags)])] in plan order."""
    rules = {}
    for c in changes:
        key = (c.rule or c.id, c.why)
        subs = rules.get(key)
        if subs is None:
            subs = rules[key] = {}
        # What flags() is made of, not its list: the same grouping without
        # building a list per change (30,000 on a giant host).
        sub = (c.scope, c.current, c.desired, bool(c.reboot_required), bool(c.restart_required), c.risk)
        members = subs.get(sub)
        if members is None:
            subs[sub] = [c]
        else:
            members.append(c)
    return [(rule, why, list(subs.values())) for (rule, why), subs in rules.items()]


def _shown(memo, v, width):
    """elide(value(v), width), each text worked out once per area: a NIC's IRQs share a few CPU lists."""
    if v.__class__ is not str:
        return elide(value(v), width)
    text = memo.get((v, width))
    if text is None:
        text = memo[(v, width)] = elide(value(v), width)
    return text


def area_lines(changes, s, wrap, said=None):
    """The lines of one area's changes, grouped (see the module doc). ``said``
    ({why: rule}) carries the whys already printed, across areas."""
    out, said = [], ({} if said is None else said)
    # Each subgroup's scope label and flags by what they are made of, each value's text once:
    # 2,300 IRQ changes of a many-NIC plan fall in as many subgroups of one change each.
    heads, memo = {}, {}
    for rule, why, subgroups in groups(changes):
        out.append("  " + s("bold", elide(rule, WIDTH - 2)))
        for members in subgroups:
            c = members[0]
            head_key = (c.scope, bool(c.reboot_required), bool(c.restart_required), c.risk)
            head = heads.get(head_key)
            if head is None:
                fl = flags(c)
                tail = ("   [" + ", ".join(fl) + "]") if fl else ""
                head = heads[head_key] = (s(c.scope, "%-10s" % c.scope), tail, WIDTH - 15 - len(tail) - len(" -> "))
            label, tail, room = head
            current = _shown(memo, c.current, min(25, room // 2))
            change = "%s -> %s" % (current, s("bold", _shown(memo, c.desired, room - len(current))))
            if len(members) == 1:
                out.append("    %s %s" % (label, elide(c.target, WIDTH - 15, middle=False)))
            else:
                out.append("    %s %d targets:" % (label, len(members)))
                out.extend(wrap(clean(targets_text([m.target for m in members])), " " * 15).splitlines())
            out.append("               %s%s" % (change, tail))
        if why:
            if why in said:
                out.append(s("dim", "    why: as for %s" % elide(said[why], WIDTH - 16)))
            else:
                said[why] = rule
                out.append(s("dim", wrap("why: " + clean(why), "    ")))
    return out
