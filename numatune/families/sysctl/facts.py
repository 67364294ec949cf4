"""Sysctl values live (/proc/sys) and at boot (sysctl.d files in load order).

systemd-sysctl and ``sysctl --system`` read every ``*.conf`` in these
directories, sorted by file name across all of them; a name in an earlier
directory hides the same name in later ones. ``/etc/sysctl.conf`` is read last
(RHEL links it in as ``/etc/sysctl.d/99-sysctl.conf``). Later settings win.
"""
import re

from numatune.facts.kernel import normalize  # noqa: F401 (sysctl values compare this way)

SYSCTL_DIRS = ("/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d",
               "/usr/lib/sysctl.d", "/lib/sysctl.d")
SYSCTL_CONF = "/etc/sysctl.conf"
OURS = "/etc/sysctl.d/90-numatune.conf"
RUNTIME = "/run/"  # a tmpfs: what is written there is written again (or not) by its owner at each boot
MARK = "#numatune# "


def key_path(key):
    return "/proc/sys/" + key.replace(".", "/")


def parse_conf(text):
    """[(line_number, key, value)] of a sysctl.d file."""
    out = []
    for number, line in enumerate((text or "").splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        key, sep, value = stripped.partition("=")
        if not sep:
            continue
        # A leading '-' means "ignore errors"; '/' is an alternative separator.
        key = key.strip().lstrip("-").replace("/", ".")
        out.append((number, key, normalize(value)))
    return out


def load_order(root):
    """Host paths of the sysctl files in the order they are applied at boot."""
    chosen = {}
    for directory in SYSCTL_DIRS:
        for path in root.glob(directory, "*.conf"):
            chosen.setdefault(path.rsplit("/", 1)[1], path)
    paths = [chosen[name] for name in sorted(chosen)]
    resolved = {root.realpath(p) for p in paths}
    if root.exists(SYSCTL_CONF) and root.realpath(SYSCTL_CONF) not in resolved:
        paths.append(SYSCTL_CONF)
    if OURS not in paths:
        # Where ours would sit, so the plan knows which files load after it.
        paths.append(OURS)
        paths.sort(key=lambda p: (p == SYSCTL_CONF, p.rsplit("/", 1)[1]))
    return paths


def read_files(root):
    files = []
    for path in load_order(root):
        text = root.read_text(path)
        entry = {"path": path, "exists": text is not None, "settings": parse_conf(text)}
        if path.startswith(RUNTIME):
            # Lines numatune commented out there: /run is rebuilt at boot, so they come back.
            marked = "".join(line[len(MARK):] + "\n" for line in (text or "").splitlines() if line.startswith(MARK))
            entry["marked"] = [key for _, key, _ in parse_conf(marked)]
        files.append(entry)
    return files


def effective(files, key):
    """(value, path, line) of the setting that wins at boot, or None."""
    winner = None
    for f in files:
        for number, k, value in f["settings"]:
            if k == key:
                winner = (value, f["path"], number)
    return winner


def read_live(root, keys):
    out = {}
    for key in keys:
        if not re.match(r"^[A-Za-z0-9_.:-]+$", key) or ".." in key:
            out[key] = None
            continue
        value = root.read_text(key_path(key))
        out[key] = normalize(value) if value is not None else None
    return out
