"""Which file keeps a NIC's settings at boot: a NetworkManager keyfile, an
ifcfg file, or a systemd .link file (systemd 209+; before, none: "live
only"), and the systemd-networkd file that configures it, if any.

The keyfile and networkd directories are read once per plan (ConfigFiles),
not once per NIC: each NIC looks for its name in every file, and 256 NICs
with a keyfile each read 65,536 files."""
import re
from fnmatch import fnmatchcase

from numatune.families.network import era
from numatune.families.network.netconf import ini_get

PERSIST_NM = "/etc/NetworkManager/system-connections"
PERSIST_IFCFG = "/etc/sysconfig/network-scripts"
PERSIST_NETWORKD = "/etc/systemd/network"

# A keyfile's interface-name, tried from every line start (zero-width: a value spread over lines by \s,
# which matches newlines, may hold the next line's key, and each line start must still be tried). The
# value is the one run of non-space a name's own expression, ^\s*interface-name\s*=\s*NAME\s*$, matches.
_SAID_NAME = re.compile(r"(?m)^(?=\s*interface-name\s*=\s*(\S+)\s*$)")


class ConfigFiles:
    """The keyfiles and .network files of one root, each read when first asked."""

    def __init__(self, root):
        self._root = root
        self._nm = self._networkd = self._said = None

    def keyfiles(self):
        """[(path, text)] of the .nmconnection files, in listing order."""
        if self._nm is None:
            self._nm = [(path, self._root.read_text(path) or "") for path in
                        ("%s/%s" % (PERSIST_NM, f) for f in self._root.listdir(PERSIST_NM)
                         if f.endswith(".nmconnection"))]
        return self._nm

    def keyfile_of(self, name):
        """(path, text) of the first keyfile whose interface-name is ``name``, else None. The
        keyfiles' names are indexed once: a NIC's own expression cost ~55 us to compile, per NIC."""
        if not name or len(name.split()) != 1 or name.split()[0] != name:
            # Not one run of non-space (never a kernel interface name): its own expression.
            said = re.compile(r"(?m)^\s*interface-name\s*=\s*%s\s*$" % re.escape(name))
            return next(((path, text) for path, text in self.keyfiles() if said.search(text)), None)
        if self._said is None:
            self._said = {}
            for path, text in self.keyfiles():
                for said in _SAID_NAME.finditer(text):
                    self._said.setdefault(said.group(1), (path, text))
        return self._said.get(name)

    def networkd(self):
        """[(path, text, [Match] Name patterns, [Match] MACs)] of the .network files, in networkd's order."""
        if self._networkd is None:
            self._networkd = []
            for fname in sorted(self._root.listdir(PERSIST_NETWORKD)):
                if fname.endswith(".network"):
                    path = "%s/%s" % (PERSIST_NETWORKD, fname)
                    text = self._root.read_text(path) or ""
                    match = ini_get(text).get("Match") or {}
                    self._networkd.append((path, text, match.get("Name", "").split(),
                                           match.get("MACAddress", "").lower().split()))
        return self._networkd


def persistence(root, name, systemd=None, mac=None, config=None):
    """{"kind", "path", "text", ...} of the file that keeps ``name``'s settings
    (``systemd``: era.read(); ``config``: the root's ConfigFiles, shared by its NICs)."""
    config = config or ConfigFiles(root)
    keyfile = config.keyfile_of(name)
    if keyfile is not None:
        return {"kind": "nm", "path": keyfile[0], "text": keyfile[1]}
    ifcfg = "%s/ifcfg-%s" % (PERSIST_IFCFG, name)
    # Read first: a file that reads is there (one lookup per NIC, not two); one that does not may still
    # be there, unreadable, and it is still the NIC's file.
    text = root.read_text(ifcfg)
    if text is not None or root.exists(ifcfg):
        return {"kind": "ifcfg", "path": ifcfg, "text": text}
    # No file of NetworkManager's or the network service's configures the NIC: the link-level settings go to
    # a .link file of numatune's; the MTU only to a systemd-networkd file that already configures it (a new
    # ifcfg file would be a configuration of its own, and could bring the NIC up with no address at boot).
    link = "%s/70-numatune-%s.link" % (PERSIST_NETWORKD, name)
    said = era.describe(systemd) if systemd else None
    networkd = networkd_file(name, mac, config)
    if systemd and systemd["link"] is False:
        return {"kind": "none", "path": None, "text": None, "era": said, "networkd": networkd}
    return {"kind": "link", "path": link, "text": root.read_text(link), "networkd": networkd,
            "era": said if systemd and systemd["link"] is None else None}


def networkd_file(name, mac, config):
    """{"path", "text"} of the systemd-networkd .network file whose [Match] names
    the NIC (by name pattern or MAC), the first in networkd's order; else None."""
    for path, text, names, macs in config.networkd():
        if (names and any(fnmatchcase(name, n) for n in names)) or (mac and mac.lower() in macs):
            return {"path": path, "text": text}
    return None
