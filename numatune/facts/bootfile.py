"""The boot path for what has no file of its own: /etc/numatune/boot.conf
holds the values a change sets live that nothing else restores at boot
(per-node HugePages, ...), and `numatune boot` (run early at boot by
numatune-boot.service, or the SysV script numatune-boot on RHEL/OL 6)
writes them again.

apply writes the file like any other file (journaled byte for byte; revert
puts the old one back), through the ``bootunit`` family's editor. This module holds the format;
numatune.apply.bootfile replays it.

The format, one setting a line (``#`` starts a comment)::

    /sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages = 512
"""
from numatune.facts import keyvalue

PATH = "/etc/numatune/boot.conf"
HEADER = ("# Written by `numatune apply`: values numatune sets live that no other file keeps.\n"
          "# `numatune boot` writes them again at boot (numatune-boot.service, or the SysV\n"
          "# script numatune-boot); `numatune revert` puts this file back as it was.\n")


def parse(text):
    """[(path, value)] in file order; the last line for a path wins."""
    out = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or " = " not in line:
            continue
        path, _, value = line.partition(" = ")
        out.pop(path.strip(), None)
        out[path.strip()] = value.strip()
    return list(out.items())


def _path_of(line):
    stripped = line.strip()
    if stripped.startswith("#"):
        return None
    return stripped.partition(" = ")[0].strip()


def set_line(text, path, value):
    """``text`` with ``path = value`` in place of any line for ``path`` (appended when new)."""
    return keyvalue.set_key(text, path, value, _path_of, HEADER)


# What no value line can hold: a live change whose targets differ at each boot
# (IRQ numbers). apply keeps, per family, a copy of the policy it applied and
# the keys (``Change.boot_key``) of the live changes no file keeps; `numatune
# boot` plans that policy again on the new boot's facts and applies only the
# live changes that carry those keys. JSON, written sorted and indented so a
# rewrite with the same content is byte for byte the same file.
REPLAY_PATH = "/etc/numatune/boot-replay.json"
REPLAY_NOTE = ("Written by `numatune apply`; `numatune boot` re-plans each family's policy copy on the boot's own "
               "facts and applies its live changes with these keys. `numatune revert` puts this file back.")


def parse_replay(text):
    """{family: {"keys": [...], "policy": {...}}}; {} for no file or a file
    that is not ours (an edit by hand that broke it: boot then redoes nothing)."""
    if not text:
        return {}   # most hosts have no replay file: no JSON decoder loaded for it
    import json
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    families = data.get("families") if isinstance(data, dict) else None
    if not isinstance(families, dict):
        return {}
    return {name: entry for name, entry in families.items()
            if isinstance(entry, dict) and isinstance(entry.get("keys"), list)
            and isinstance(entry.get("policy"), dict)}


def set_replay(text, family, keys, policy):
    """``text`` with ``family``'s entry set (``keys`` empty: removed); None
    (no file) when no family is left."""
    import json
    families = parse_replay(text)
    if keys:
        families[family] = {"keys": sorted(set(keys)), "policy": policy}
    else:
        families.pop(family, None)
    if not families:
        return None
    return json.dumps({"note": REPLAY_NOTE, "version": 1, "families": families}, indent=1, sort_keys=True) + "\n"
