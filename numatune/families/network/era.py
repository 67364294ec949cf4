"""Which systemd the root runs, from its files: .link files (and udev's
net_setup_link builtin that reads them) came with systemd 209, and RHEL 7.0
ships 208, so a .link file there would keep nothing.

``systemd --version`` is not something to run under --root (nor the rpm
database to read), so the version comes from file names the packages
install: libsystemd-shared-NNN.so (231 and later), /usr/share/doc/systemd-NNN
(RHEL 7's docs directory), and 99-default.link, the default .link file that
shipped with 209 itself. A snapshot keeps none of the first two: there the
release says it (RHEL/OL 7.0 and 7.1 ship 208, 6 has no systemd at all).
"""
import re

SHARED_DIRS = ("/usr/lib/systemd", "/lib/systemd", "/usr/lib64/systemd", "/usr/lib/x86_64-linux-gnu/systemd",
               "/usr/lib/aarch64-linux-gnu/systemd")
DEFAULT_LINK = ("/usr/lib/systemd/network/99-default.link", "/lib/systemd/network/99-default.link")
LINK_SINCE = 209
_SHARED_RE = re.compile(r"^libsystemd-shared-(\d+)")
_DOC_RE = re.compile(r"^systemd-(\d+)$")


def parse_version(names, pattern):
    """The highest NNN among file names (a leftover of an upgrade is older)."""
    found = [int(m.group(1)) for m in (pattern.match(n) for n in names) if m]
    return max(found) if found else None


def read(root, distro):
    """{"version": int or None, "link": True/False/None, "source": why we think so}."""
    for d in SHARED_DIRS:
        version = parse_version(root.listdir(d), _SHARED_RE)
        if version:
            return {"version": version, "link": version >= LINK_SINCE, "source": "%s/libsystemd-shared-%d.so"
                    % (d, version)}
    version = parse_version(root.listdir("/usr/share/doc"), _DOC_RE)
    if version:
        return {"version": version, "link": version >= LINK_SINCE, "source": "/usr/share/doc/systemd-%d" % version}
    for path in DEFAULT_LINK:
        if root.exists(path):
            return {"version": None, "link": True, "source": path}
    version = distro.get("version") or ""
    major = version.split(".")[0]
    el = distro.get("id") in ("rhel", "ol", "centos")
    if el and version in ("7.0", "7.1"):
        return {"version": 208, "link": False, "source": "%s ships systemd 208" % (distro.get("name") or
                                                                                 "release " + version)}
    if el and major in ("5", "6"):
        return {"version": None, "link": False, "source": "%s (no systemd)" % (distro.get("name") or "release "
                                                                               + major)}
    return {"version": None, "link": None, "source": None}


def describe(era):
    if era["version"]:
        return "systemd %d (%s)" % (era["version"], era["source"])
    if era["link"]:
        return "systemd 209 or later (%s)" % era["source"]
    if era["link"] is False:
        return era["source"]
    return "systemd version unknown"
