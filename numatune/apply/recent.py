"""The value files verify reads back, read once for verify's facts too.

Verify after apply reads back each value it wrote, then the families that
changed something read their facts again (engine.gather), and those facts
are mostly the same files: a giant host's 35,000 queue attributes, IRQ
affinities and cpuidle states were each opened and read twice within a
second, with nothing written in between. Here the read-backs are made
first, a directory's files together (Root.read_texts: the directory
resolved once), and their texts are what the facts read of those files:
Root's one-file reads answer from them while ``Recent`` is in force, and
read every other file as before. Read twice or once, they are the host as
it is after the last write; once, the read-back and the facts cannot even
disagree.
"""

_MISSING = object()


def _parts(path):
    """(directory, name) of an absolute host path of plain components, or None
    (a path read_texts would not take: it is read by the kind as before)."""
    directory, _, name = path.rpartition("/")
    # "/." covers every "." and ".." component (and a hidden file's name, read as before: rare here).
    if not directory.startswith("/") or not name or "/." in path or "//" in path:
        return None
    return directory, name


class Recent:
    """``with Recent(root, paths):`` the texts of ``paths`` read, one
    directory at a time, and Root's reads (read_text, read_texts and those
    built on them, read_value_alone, read_values_under) answering from them
    until the end."""

    _READS = ("read_text", "read_texts", "read_value_alone", "read_values_under")

    def __init__(self, root, paths):
        self.root = root
        self.texts = {}
        by_dir = {}
        for path in paths:
            parts = _parts(path)
            if parts is not None:
                names = by_dir.setdefault(parts[0], {})
                names[parts[1]] = None
        # The directories listing those directories (a CPU's cpuidle/ for its states' disable).
        self.parents = {d.rpartition("/")[0] or "/" for d in by_dir}
        for directory, names in by_dir.items():
            base = directory + "/"
            if len(names) == 1:
                # The one file written there (an IRQ's affinity, a disk's queue_depth, a C-state's
                # disable: 9,000 of a giant host's 14,000 directories): by its whole path, one confined
                # open (read_text_alone); not its directory opened, then the file, then closed.
                name, = names
                self.texts[base + name] = root.read_text_alone(base + name)
                continue
            for name, got in root.read_texts(directory, tuple(names)).items():
                self.texts[base + name] = got

    def __enter__(self):
        root, texts = self.root, self.texts
        text_of, texts_of, alone = root.read_text, root.read_texts, root.read_value_alone
        under, parents = root.read_values_under, self.parents

        def read_text(path, default=None):
            got = texts.get(path, _MISSING)
            if got is _MISSING:
                return text_of(path, default)
            return default if got is None else got

        def read_texts(directory, names):
            base = directory.rstrip("/") + "/"
            left = [n for n in names if base + n not in texts or "/" in n or n in ("", ".", "..")]
            # The directory is opened only for a file not read back (its check of the names included).
            read = texts_of(directory, left) if left else {}
            return {n: read[n] if n in read else texts[base + n] for n in names}

        def read_value_alone(path, default=None):
            got = texts.get(path, _MISSING)
            if got is _MISSING:
                return alone(path, default)
            return default if got is None else got.replace("\x00", "").strip()

        def read_values_under(directory, match, names):
            key = directory.rstrip("/") or "/"
            if key not in parents:
                return under(directory, match, names)
            # Each entry as read_values reads it: through read_texts above.
            return {entry: root.read_values(key.rstrip("/") + "/" + entry, names)
                    for entry in root.listdir(key) if match(entry)}

        # On this Root only, and only until __exit__: an instance's attribute is found before its class's method.
        root.read_text, root.read_texts, root.read_value_alone = read_text, read_texts, read_value_alone
        root.read_values_under = read_values_under
        return self

    def __exit__(self, *exc):
        for name in self._READS:
            self.root.__dict__.pop(name, None)
        return False
