"""The sysctl part of `numatune facts --format policy`: each key whose live
value is also the value that wins at boot (a sysctl.d file sets it), as a
[sysctl] entry. A key live at one value and set at boot to another is left
out: no policy can say both, and the host itself changes at the next boot."""
import re

from numatune.families.sysctl.facts import effective


def _same(a, b):
    return " ".join(str(a).split()) == " ".join(str(b).split())


def as_policy(facts):
    """({"sysctl": {key: value}}, policy data to read more keys with)."""
    mine = facts.get("sysctl") or {}
    files = mine.get("files") or []
    live = mine.get("live") or {}
    in_files = sorted({k for f in files for _, k, _ in f["settings"]})
    out = {}
    for key in sorted(set(live) | set(in_files)):
        value, win = live.get(key), effective(files, key)
        if value is None or not win or not _same(win[0], value):
            continue
        text = " ".join(value.split())
        out[key] = int(text) if re.fullmatch(r"-?[0-9]+", text) and len(text) < 19 else text
    more = {"sysctl": {k: {"value": 0} for k in in_files if k not in live}}
    return ({"sysctl": out} if out else {}), more
