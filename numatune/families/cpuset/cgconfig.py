"""Persistent cpusets: libcgroup's cgconfig.conf groups and systemd slice
units. Pure parsers and editors (text in, text out); the cpuset family plans
the writes and the file applier journals them byte for byte.

cgconfig (cgconfigparser at boot, or ``service cgconfig restart``) recreates
its groups with the values in the file, overwriting live changes, so the
cpuset family plans the file and the live cgroup together.
"""
import re

HEADER = "# Managed by numatune: `numatune apply` rewrites this group, `numatune revert` restores it.\n"


def _block_end(text, start):
    """Index just past the brace that closes the one opened at ``start``."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "#":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


class CgconfigError(ValueError):
    """A cgconfig.conf numatune cannot edit safely: it is left as it is."""


def find_group(text, name):
    """(start, end) of ``group NAME { ... }`` in cgconfig text, or None.
    A group whose braces never close is refused, not appended to again."""
    for m in re.finditer(r"(?m)^[ \t]*group[ \t]+(\S+)[ \t\n]*\{", text or ""):
        if m.group(1) == name:
            end = _block_end(text, m.end() - 1)
            if end < 0:
                raise CgconfigError("group %s in cgconfig.conf has no closing brace" % name)
            return m.start(), end
    return None


def _sub_block(block, name):
    """(open brace, end) of the first ``name { ... }`` inside ``block``, or None."""
    m = re.search(r"(?m)(^|[\s{;])%s[ \t\n]*\{" % re.escape(name), block[1:])
    if m is None:
        return None
    brace = m.end()  # the index of "{" in block (block[1:] shifted the match by one)
    end = _block_end(block, brace)
    if end < 0:
        raise CgconfigError("a %s block in cgconfig.conf has no closing brace" % name)
    return brace, end


def _set_assignments(inner, pairs, indent):
    """``inner`` with each ``key = value;`` set in place, or added at the end."""
    for key, value, names in pairs:
        line = "%s = %s;" % (key, value)
        keys = "|".join(map(re.escape, names))
        pat = re.compile(r"(^|[\s{;])(?:%s)[ \t]*=[ \t]*(\"[^\"\n]*\"|[^;\n]*);" % keys)
        m = pat.search(inner)
        if m:
            inner = inner[:m.start() + len(m.group(1))] + line + inner[m.end():]
            continue
        body = inner.rstrip()
        tail = inner[len(body):]
        if "\n" in tail:   # a block over lines: a new line before the brace's own
            inner = body + "\n" + indent + line + tail
        else:              # a one-line block: { a = 1; b = 2; }
            inner = body + " " + line + (tail or " ")
    return inner


def _edit_group(block, settings, uid, gid):
    """The existing group with our cpuset values and owner set; every other
    byte (comments, other controllers, perm's fperm/dperm) kept."""
    pairs = [(k, '"%s"' % v, (k, k[len("cpuset."):]) if k.startswith("cpuset.") else (k,)) for k, v in settings]
    span = _sub_block(block, "cpuset")
    if span is None:
        close = block.rstrip().rfind("}")
        body = "".join('        %s = "%s";\n' % (k, v) for k, v in settings)
        block = block[:close] + "    cpuset {\n" + body + "    }\n" + block[close:]
    else:
        inner = _set_assignments(block[span[0] + 1:span[1] - 1], pairs, "        ")
        block = block[:span[0] + 1] + inner + block[span[1] - 1:]
    if uid is None:
        return block
    perm = _sub_block(block, "perm")
    if perm is None:
        first = block.index("{") + 1
        perm_text = ("\n    perm {\n        task { uid = %s; gid = %s; }\n        admin { uid = %s; gid = %s; }\n    }"
                     % (uid, gid, uid, gid))
        return block[:first] + perm_text + block[first:]
    inner = block[perm[0] + 1:perm[1] - 1]
    for who in ("task", "admin"):
        sub = _sub_block("{" + inner, who)
        owner = [("uid", str(uid), ("uid",)), ("gid", str(gid), ("gid",))]
        if sub is None:
            inner = inner.rstrip(" \t") + "    %s { uid = %s; gid = %s; }\n    " % (who, uid, gid)
        else:
            a, b = sub[0] - 1, sub[1] - 1  # back to offsets in inner
            inner = inner[:a + 1] + _set_assignments(inner[a + 1:b - 1], owner, "") + inner[b - 1:]
    return block[:perm[0] + 1] + inner + block[perm[1] - 1:]


def group_settings(text, name):
    """{"cpuset.cpus": "0-3", ..., "uid": ..., "gid": ...} of a group, or None."""
    span = find_group(text, name)
    if span is None:
        return None
    block = text[span[0]:span[1]]
    out = {}
    m = re.search(r"\bcpuset[ \t\n]*\{([^}]*)\}", block)
    if m:
        for key, value in re.findall(r"([A-Za-z_.]+)\s*=\s*\"?([^\";]*)\"?\s*;", m.group(1)):
            out[key if key.startswith("cpuset.") else "cpuset." + key] = value.strip()
    m = re.search(r"\btask[ \t\n]*\{([^}]*)\}", block)
    if m:
        for key, value in re.findall(r"\b(uid|gid)\s*=\s*([^;\s]+)\s*;", m.group(1)):
            out[key] = value
    return out


def render_group(name, settings, uid=None, gid=None):
    lines = ["group %s {" % name]
    if uid is not None:
        # Oracle's processes join the group as the owner: both task and admin.
        lines += ["    perm {",
                  "        task { uid = %s; gid = %s; }" % (uid, gid),
                  "        admin { uid = %s; gid = %s; }" % (uid, gid),
                  "    }"]
    lines.append("    cpuset {")
    for key, value in settings:
        lines.append('        %s = "%s";' % (key, value))
    lines += ["    }", "}"]
    return "\n".join(lines) + "\n"


def cgconfig_group(text, name, settings, uid=None, gid=None):
    """Editor: put ``group NAME`` with ``settings`` ([[key, value]]) in the file."""
    block = render_group(name, settings, uid, gid)
    if text is None:
        return HEADER + block
    span = find_group(text, name)
    if span is None:
        sep = "" if not text or text.endswith("\n") else "\n"
        return text + sep + block
    return text[:span[0]] + _edit_group(text[span[0]:span[1]], settings, uid, gid) + text[span[1]:]


def parse_unit(text):
    """{"Section": {"Key": "value"}} of a systemd unit (last one wins)."""
    out, section = {}, None
    for line in (text or "").splitlines():
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("[") and s.endswith("]"):
            section = out.setdefault(s[1:-1], {})
        elif "=" in s and section is not None:
            key, _, value = s.partition("=")
            section[key.strip()] = value.strip()
    return out


def slice_set(text, settings, description=""):
    """Editor: set ``settings`` ({key: value}) in the [Slice] section."""
    if text is None:
        text = "# Managed by numatune.\n[Unit]\nDescription=%s\n\n[Slice]\n" % (description or "numatune cpuset")
    lines = text.splitlines(True)
    out, section, done = [], None, set()
    slice_at = None
    for line in lines:
        s = line.strip()
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1]
            out.append(line)
            if section == "Slice":
                slice_at = len(out)
            continue
        key = s.partition("=")[0].strip() if "=" in s and not s.startswith(("#", ";")) else None
        if section == "Slice" and key in settings:
            if key not in done:
                out.append("%s=%s\n" % (key, settings[key]))
                done.add(key)
            continue
        out.append(line)
    missing = ["%s=%s\n" % (k, v) for k, v in settings.items() if k not in done]
    if slice_at is None:
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.append("\n[Slice]\n")
        out.extend(missing)
    else:
        out[slice_at:slice_at] = missing
    return "".join(out)


# A slice unit file alone starts nothing: systemd creates a slice's cgroup when something starts the slice, and
# only what slices.target wants is started at every boot (systemd.special(7): "slice units ... that shall always be
# active after boot"). A drop-in that wants it, as `systemctl enable` of WantedBy=slices.target would, is a file
# apply journals and revert removes (no symlink to manage), like numatune-boot.service's.
SLICE_WANTS_DIR = "/etc/systemd/system/slices.target.d"
SLICE_WANTS_TEXT = """\
# Written by `numatune apply`: starts {unit} at every boot, so its cgroup and cpuset
# exist before the database starts (revert removes this file).
[Unit]
Wants={unit}
"""


def slice_wants_path(unit):
    return "%s/numatune-%s.conf" % (SLICE_WANTS_DIR, unit[:-len(".slice")])


def slice_wants(text, unit):
    """Editor: the slices.target drop-in that starts ``unit`` at boot."""
    return SLICE_WANTS_TEXT.format(unit=unit)


EDITORS = {"cgconfig_group": cgconfig_group, "slice_set": slice_set, "slice_wants": slice_wants}
