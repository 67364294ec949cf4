"""`numatune plan --diff`: the unified diff of every file apply would edit,
made by the same editors apply runs (numatune.apply.file.edit_bytes), chained
in plan order over the writes to one file, on the bytes under the root now.
Nothing is written."""
import difflib

from numatune.apply.file import edit_bytes


def _lines(data):
    if data is None:
        return []
    return data.decode("utf-8", "surrogateescape").splitlines(True)


def file_edits(root, changes):
    """[(host path, bytes before or None, bytes after or None)] in the order
    the files are first written."""
    state, order = {}, []
    for change in changes:
        for write in change.writes:
            # A family's own kind may edit a file through an editor too
            # (multipath.conf and its daemon's reconfigure, one op).
            if write.kind != "file" and not write.editor:
                continue
            # apply edits what a symlink points at (99-sysctl.conf -> ../sysctl.conf).
            path = root.realpath(write.path)
            if path not in state:
                before = root.read_bytes(path)
                state[path] = [before, before]
                order.append(path)
            state[path][1] = edit_bytes(state[path][1], write.editor, write.args)
    return [(path, state[path][0], state[path][1]) for path in order if state[path][0] != state[path][1]]


def unified(path, before, after):
    out = list(difflib.unified_diff(_lines(before), _lines(after),
                                    "/dev/null" if before is None else "a" + path,
                                    "/dev/null" if after is None else "b" + path))
    # A last line without a newline reads like git's: marked, not glued to the next header.
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


def diff_text(root, changes, style=None):
    parts = []
    for path, before, after in file_edits(root, changes):
        text = unified(path, before, after)
        if style is not None and style.on:
            text = "".join(_colour(line, style) for line in text.splitlines(True))
        parts.append(text)
    return "".join(parts) if parts else "no files to edit\n"


def _colour(line, s):
    if line.startswith(("+++", "---")):
        return s("bold", line.rstrip("\n")) + "\n"
    if line.startswith("+"):
        return s("live", line.rstrip("\n")) + "\n"
    if line.startswith("-"):
        return s("critical", line.rstrip("\n")) + "\n"
    if line.startswith("@@"):
        return s("info", line.rstrip("\n")) + "\n"
    return line
