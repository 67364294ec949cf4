"""The running kernel: release, distro, command line and THP mode."""
import os
import re

THP_DIRS = ("/sys/kernel/mm/transparent_hugepage",
            # RHEL 6 backported THP under its own name.
            "/sys/kernel/mm/redhat_transparent_hugepage")


def split_cmdline(text):
    """Kernel-style split: whitespace separates, double quotes group."""
    args, cur, quoted, any_ = [], [], False, False
    for ch in (text or ""):
        if ch == '"':
            quoted = not quoted
            cur.append(ch)
            any_ = True
        elif ch.isspace() and not quoted:
            if any_:
                args.append("".join(cur))
            cur, any_ = [], False
        else:
            cur.append(ch)
            any_ = True
    if any_:
        args.append("".join(cur))
    return args


def normalize(value):
    """Multi-word kernel values compare whitespace-normalised: "4096  87380\t16777216"."""
    return " ".join(str(value).split())


def parse_uevent(text):
    """A sysfs ``uevent`` file (KEY=value lines) -> {KEY: value}."""
    props = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            props[key.strip()] = value.strip()
    return props


def parse_bracketed(text):
    """"always madvise [never]" -> ("never", ["always", "madvise", "never"]).
    A copied file holding just "never" gives ("never", [])."""
    text = (text or "").strip()
    m = re.search(r"\[([^\]]+)\]", text)
    if m:
        return m.group(1), [w.strip("[]") for w in text.split()]
    return text, []


def parse_os_release(text):
    out = {}
    for line in (text or "").splitlines():
        m = re.match(r'^([A-Z_]+)=(.*)$', line.strip())
        if m:
            out[m.group(1)] = m.group(2).strip().strip('"').strip("'")
    return out


def read_distro(root):
    rel = parse_os_release(root.read_text("/etc/os-release"))
    if rel:
        return {"id": rel.get("ID", ""), "version": rel.get("VERSION_ID", ""),
                "name": rel.get("PRETTY_NAME") or rel.get("NAME", "")}
    text = root.read_value("/etc/redhat-release") or root.read_value("/etc/oracle-release")
    if text:
        m = re.search(r"release\s+([\d.]+)", text)
        return {"id": "rhel", "version": m.group(1) if m else "", "name": text}
    return {"id": "", "version": "", "name": ""}


def read_thp(root):
    for base in THP_DIRS:
        text = root.read_text(base + "/enabled")
        if text is not None:
            mode, options = parse_bracketed(text)
            defrag, _ = parse_bracketed(root.read_text(base + "/defrag"))
            return {"path": base + "/enabled", "enabled": mode, "options": options, "defrag": defrag}
    return None


def read(root):
    cmdline = root.read_text("/proc/cmdline")
    release = root.read_value("/proc/sys/kernel/osrelease")
    if release is None and root.is_live:
        release = os.uname().release   # what platform.release() says, without importing it
    return {
        "release": release or "",
        "hostname": root.read_value("/proc/sys/kernel/hostname") or root.read_value("/etc/hostname") or "",
        "arch": os.uname().machine if root.is_live else "",
        "distro": read_distro(root),
        "cmdline": split_cmdline(cmdline) if cmdline is not None else None,
        "thp": read_thp(root),
    }
