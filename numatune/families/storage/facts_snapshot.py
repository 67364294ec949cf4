"""What `numatune snapshot` keeps of the block devices on the live host: the
/sys/block and /sys/class/block links as links and the files behind them,
in Python and in POSIX sh (packaging/numatune-snapshot.sh)."""
import os

from numatune.families.storage.facts import QUEUE_ATTRS, _real, device_names


def snapshot_live(root):
    """(host paths, {}) a snapshot of the live host needs for these facts."""
    return snapshot_paths(root), {}


def snapshot_paths(root):
    """Host paths a snapshot needs for these facts: the /sys/block and
    /sys/class/block links as links, and the files behind them."""
    out = []
    for name, path in device_names(root).items():
        out += [d + name for d in ("/sys/block/", "/sys/class/block/") if root.islink(d + name)]
        real = _real(root, path)
        out += ["%s/%s" % (real, f) for f in ("dev", "size", "uevent", "dm/name", "dm/uuid")]
        out += ["%s/queue/%s" % (real, a) for a in QUEUE_ATTRS]
        for sub in ("slaves", "holders"):
            out += ["%s/%s/%s" % (real, sub, n) for n in root.listdir("%s/%s" % (real, sub))]
        if root.islink(real + "/device"):
            out.append(real + "/device")
            sdev = root.rel(os.path.realpath(root.join(real + "/device")))
            out += ["%s/%s" % (sdev, f) for f in ("vendor", "model", "wwid", "queue_depth")]
            out += ["%s/scsi_disk/%s/cache_type" % (sdev, h) for h in root.listdir(sdev + "/scsi_disk")]
        parent = real
        while parent.startswith("/sys/devices/") and parent.count("/") > 3:
            parent = os.path.dirname(parent)
            out.append(parent + "/numa_node")
    return sorted({p for p in out if root.islink(p) or os.path.isfile(root.join(p))})


def _sh_keep_if(path):
    # snapshot_paths keeps links and regular files only.
    return "if [ -L \"%s\" ] || [ -f \"%s\" ]; then keep_file \"%s\"; fi" % (path, path, path)


# snapshot_paths in POSIX sh (packaging/numatune-snapshot.sh, live host only).
SH_LIVE = "\n".join([
    "    for top in /sys/block /sys/class/block; do",
    "        for path in \"$top\"/*; do",
    "            name=${path##*/}",
    "            [ -e \"$path\" ] || [ -L \"$path\" ] || continue",
    # device_names: /sys/block first; a name listed there is not looked at again.
    "            if [ \"$top\" = /sys/class/block ] && { [ -e \"/sys/block/$name\" ] || "
    "[ -L \"/sys/block/$name\" ]; }; then continue; fi",
    "            [ -e \"$path/partition\" ] && continue",
    "            for d in /sys/block /sys/class/block; do",
    "                [ -L \"$d/$name\" ] && keep_file \"$d/$name\"",
    "            done",
    "            real=$path",
    "            [ -L \"$path\" ] && real=$(readlink -f \"$path\")",
    "            for f in dev size uevent dm/name dm/uuid %s; do" % " ".join("queue/" + a for a in QUEUE_ATTRS),
    "                " + _sh_keep_if("$real/$f"),
    "            done",
    "            for e in \"$real\"/slaves/* \"$real\"/holders/*; do",
    "                " + _sh_keep_if("$e"),
    "            done",
    "            if [ -L \"$real/device\" ]; then",
    "                keep_file \"$real/device\"",
    "                sdev=$(readlink -f \"$real/device\")",
    "                for f in vendor model wwid queue_depth; do",
    "                    " + _sh_keep_if("$sdev/$f"),
    "                done",
    "                for h in \"$sdev\"/scsi_disk/*; do",
    "                    " + _sh_keep_if("$h/cache_type"),
    "                done",
    "            fi",
    "            parent=$real",
    "            while case $parent in /sys/devices/*/*) true ;; *) false ;; esac; do",
    "                parent=${parent%/*}",
    "                " + _sh_keep_if("$parent/numa_node"),
    "            done",
    "        done",
    "    done",
])
