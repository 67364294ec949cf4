"""Has multipathd read the multipath.conf on disk? An edited file changes
nothing until `multipathd reconfigure`, so the plan keeps that restart
pending until it has happened.

Live: the daemon's running configuration (`multipathd show config`) is
compared with numatune's section. Under ``--root`` (a snapshot): the file's
mtime against the daemon's start, the mtime of its pid file (written when
it starts; a snapshot keeps file times).
"""
import os

from numatune.families.storage import multipath_conf

PIDFILES = ("/run/multipathd.pid", "/var/run/multipathd.pid")


def _mtime(root, path):
    try:
        return os.stat(root.join(path)).st_mtime
    except OSError:
        return None


def read(root, binary):
    """JSON-able facts: {"running": [devices] | None, "responding": the
    daemon answered (live only), "conf_mtime", "started"}."""
    out = {"running": None, "responding": False, "conf_mtime": _mtime(root, multipath_conf.PATH), "started": None}
    if root.is_live and binary:
        import subprocess  # live only: a check under --root does not load it
        try:
            done = subprocess.run([root.join(binary), "show", "config"], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            done = None
        out["responding"] = done is not None and done.returncode == 0
        if out["responding"] and "devices" in done.stdout:
            try:
                out["running"] = multipath_conf.parse_devices(done.stdout)
            except multipath_conf.ConfSyntaxError:
                pass
        return out
    out["started"] = next((t for t in (_mtime(root, p) for p in PIDFILES) if t is not None), None)
    return out


def _last(devices, vendor, product):
    found = None
    for dev in devices:
        if dev["vendor"] == vendor and dev["product"] == product:
            found = dev
    return found


def state(want, facts):
    """("loaded" | "stale" | "unknown", what tells)."""
    daemon = facts.get("multipathd_state") or {}
    running = daemon.get("running")
    if running is not None:
        for dev in want:
            have = _last(running, dev["vendor"], dev["product"]) or {"settings": {}}
            if any(have["settings"].get(k) != v for k, v in dev["settings"].items()):
                return "stale", "`multipathd show config` lacks %s/%s's %s" % (
                    dev["vendor"], dev["product"], ", ".join("%s %s" % kv for kv in sorted(dev["settings"].items())))
        return "loaded", "`multipathd show config` has the section's settings"
    conf, started = daemon.get("conf_mtime"), daemon.get("started")
    if conf is not None and started is not None:
        if conf > started:
            return "stale", "%s changed after multipathd started" % multipath_conf.PATH
        return "loaded", "multipathd started after %s last changed" % multipath_conf.PATH
    return "unknown", "multipathd's running configuration is not known here"
