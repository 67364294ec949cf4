"""NIC settings: MTU through rtnetlink, channels/coalescing/rings through
pyroute2's ethtool support, the RSS hash through the rxnfc ioctl.

A write names one interface and one group (``mtu``, ``channels``,
``coalesce``, ``ring``, ``rx_flow_hash``, ``bond``) with the values to set; the op
keeps the same keys' values before, so revert sets exactly those back and
leaves every other setting of the NIC alone.

Under ``--root`` there is no netlink: the MTU is the sysfs ``mtu`` file of
the copy and ethtool groups live in the snapshot file
(:data:`numatune.families.network.facts.ETHTOOL_FILE`); the op keeps the file's bytes so
revert leaves the copy identical. Bonding options are written through the
bond's sysfs files (``bonding/mode``...), its kernel interface, everywhere.
"""
import base64
import json
import os

from numatune.families.network.facts import ETHTOOL_FILE, NET_DIR
from numatune.apply.value import _write


BOND_KEYS = ("mode", "xmit_hash_policy", "miimon")


def _normal(group, values):
    if values is None:
        return None
    if group == "bond":
        return {k: int(v) if k == "miimon" else str(v) for k, v in values.items()}
    if group == "rx_flow_hash":
        from numatune.families.network.rxhash import canonical
        return {k: canonical(v) if v is not None else None for k, v in values.items()}
    return {k: int(v) if v is not None else None for k, v in values.items()}


def _offline_path(ifname, group):
    return "%s/%s/mtu" % (NET_DIR, ifname) if group == "mtu" else ETHTOOL_FILE


def _read_offline(root, ifname, group, keys):
    if group == "mtu":
        path = _offline_path(ifname, group)
        value = root.read_value(path)
        if value is None:
            return None
        try:
            return {"mtu": int(value)}
        except ValueError:
            from numatune.errors import HostError
            raise HostError("%s holds %r, not an MTU" % (path, value[:40]),
                            "put the interface's MTU there (a number, as the kernel shows it) and run again")
    text = root.read_text(ETHTOOL_FILE)
    if text is None:
        return None
    entry = (json.loads(text).get("interfaces", {}).get(ifname) or {}).get(group)
    if entry is None:
        return None
    return {k: entry.get("current", {}).get(k) for k in keys}


def _bond_file(ifname, key):
    return "%s/%s/bonding/%s" % (NET_DIR, ifname, key)


def _read_bond(root, ifname, keys):
    # The kernel prints "802.3ad 4" and takes "802.3ad": compare the name.
    out = {}
    for key in keys:
        text = root.read_value(_bond_file(ifname, key))
        if text is None:
            return None
        out[key] = text.split(" ")[0]
    return out


def read_current(root, ifname, group, keys):
    if group == "bond":
        # Bonding's own interface is sysfs, live and on a copy alike.
        return _normal(group, _read_bond(root, ifname, keys))
    if root.is_live:
        from numatune.families.network import nic
        return _normal(group, nic.current(ifname, group, keys))
    return _normal(group, _read_offline(root, ifname, group, keys))


def capture(root, write):
    ifname, group, after = write.args["ifname"], write.args["group"], write.args["values"]
    keys = sorted(after)
    before = read_current(root, ifname, group, keys)
    if before is None:
        raise OSError(95, "%s does not support %s" % (ifname, group))
    after = _normal(group, after)
    op = {"kind": "netdev", "path": write.path, "ifname": ifname, "group": group,
          "before": before, "after": after, "unchanged": before == after}
    if group == "bond":
        if not root.is_live:
            op["raw"] = {k: base64.b64encode(root.read_bytes(_bond_file(ifname, k))).decode() for k in keys}
        return op
    if not root.is_live:
        op["file"] = _offline_path(ifname, group)
        op["raw"] = base64.b64encode(root.read_bytes(op["file"])).decode()
    return op


def offline_file(root, write):
    """An ethtool group's write under ``--root`` as an edit of the snapshot
    file (the generic file kind), or None (live, an MTU, a bond): apply
    merges the edits of one transaction into one op (numatune/apply/file.py),
    journaled with the file's bytes once and written once, where each NIC's
    op rewrote and journaled the whole file (64 NICs: 64 copies, 4 MB)."""
    if root.is_live or write.args.get("group") in ("mtu", "bond"):
        return None
    from numatune.model import Write
    return Write(kind="file", path=ETHTOOL_FILE, editor="net_ethtool",
                 args={k: write.args[k] for k in ("ifname", "group", "values")})


def ethtool_set(text, ifname, group, values):
    """The snapshot's text with ``group``'s current ``values`` for ``ifname``
    (a file editor, pure); the text as it was when it holds them already."""
    entry = None
    if text is not None:
        data = json.loads(text)
        entry = ((data.get("interfaces") or {}).get(ifname) or {}).get(group)
    if entry is None:
        raise OSError(95, "%s does not support %s" % (ifname, group))
    after = _normal(group, values)
    current = entry.get("current", {})
    if _normal(group, {k: current.get(k) for k in after}) == after:
        return text
    entry.setdefault("current", {}).update(after)
    # As _write_offline writes it (no indent: json's C encoder).
    return json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"


EDITORS = {"net_ethtool": ethtool_set}


def _write_offline(root, op, values):
    if op["group"] == "mtu":
        _write(root, op["file"], str(values["mtu"]))
        return
    data = json.loads(root.read_text(ETHTOOL_FILE))
    current = data["interfaces"][op["ifname"]][op["group"]].setdefault("current", {})
    current.update(values)
    # One string, one write: json.dump streams thousands of small writes of a capture this size.
    # No indent: with one, json runs its pure-Python encoder, a third of a second per op on
    # 64 NICs x 64 queues (every op rewrites the whole file); revert puts the bytes back as they were.
    text = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    _replace(root, ETHTOOL_FILE, text.encode("utf-8"))


def _replace(root, path, data):
    """The snapshot file rewritten through the one confined writer, its mode kept."""
    real = root.join(path)
    root.write_atomic(root.rel(real), data, os.lstat(real).st_mode & 0o7777)


def _write_bond(root, op, values):
    # mode last: the kernel refuses it on a bond that is up with slaves, and
    # the op's other keys then roll back with it.
    for key in sorted(values, key=lambda k: BOND_KEYS.index(k), reverse=True):
        _write(root, _bond_file(op["ifname"], key), str(values[key]))


def perform(root, op):
    if op["group"] == "bond":
        _write_bond(root, op, op["after"])
        return
    if root.is_live:
        from numatune.families.network import nic
        nic.write(op["ifname"], op["group"], op["after"])
    else:
        _write_offline(root, op, op["after"])


def current_matches(root, op, side):
    try:
        return read_current(root, op["ifname"], op["group"], sorted(op[side])) == op[side]
    except ValueError:
        # A copy's mtu file that a cut write left empty holds neither side: the
        # revert that journaled "undoing" there finishes it (#28).
        return False


def restore(root, op):
    if op["group"] == "bond":
        if "raw" in op and not root.is_live:
            for key, raw in op["raw"].items():
                _write(root, _bond_file(op["ifname"], key), base64.b64decode(raw))
        else:
            _write_bond(root, op, op["before"])
        return
    if root.is_live:
        from numatune.families.network import nic
        nic.write(op["ifname"], op["group"], op["before"])
        return
    data = base64.b64decode(op["raw"])
    if op["group"] == "mtu":
        _write(root, op["file"], data)
        return
    _replace(root, op["file"], data)


def whole_target(op):
    """The file an offline restore rewrites whole from this op's raw bytes
    (numatune/apply/revert.py: a forced revert must not restore a later op's
    copy when the file's first op is lost, its bytes hold an earlier change)."""
    return op.get("file") if isinstance(op.get("raw"), str) else None


def cleanup(root, op):
    """The snapshot's temporary that a run killed between its write and its
    rename left behind: the undo finds the snapshot "already as before" and
    writes nothing, so nothing else would remove it (#28). Only the snapshot
    is written through a temporary: an offline mtu is a value write, and a
    name like its temporary is none of numatune's."""
    path = whole_target(op)
    if path == ETHTOOL_FILE and not root.is_live:
        try:
            real = root.join(path)
        except OSError:
            return
        root.remove_tmp(root.rel(real))


def describe(op):
    def fmt(values):
        return ", ".join("%s %s" % (k, v) for k, v in sorted(values.items()))
    return "%s %s: %s -> %s" % (op["ifname"], op["group"], fmt(op["before"]), fmt(op["after"]))
