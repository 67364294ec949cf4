"""What a capture tried to read (``numatune snapshot`` and
packaging/numatune-snapshot.sh write it at the top of the tarball): a file
missing from a capture that tried it was missing on the host; a file never
tried is unknown."""
MANIFEST = "/numatune-snapshot.json"


def render(patterns):
    import json
    return json.dumps({"format": 1, "patterns": [list(p) for p in patterns]}, sort_keys=True)


def read_patterns(root):
    """[(directory, regex, descend)] the capture under ``root`` tried, or None (no manifest: unknown)."""
    text = root.read_text(MANIFEST)
    if not text:
        return None     # a host, not a capture: no manifest, and no JSON decoder loaded to say so
    import json
    try:
        data = json.loads(text)
        return [tuple(p) for p in data["patterns"]] if data else None
    except (ValueError, KeyError, TypeError):
        return None
