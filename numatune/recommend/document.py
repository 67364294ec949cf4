"""Entries -> a commented TOML policy (tomlkit keeps the comments where they
belong), or JSON. Commented-out entries are rendered as TOML by the same
library and then turned into comment lines, so un-commenting one gives
valid TOML."""
import textwrap

import tomlkit
import tomlkit.items

WIDTH = 100


def _wrap(line, width):
    # A path or key is never split: a hyphenated directory cut in two is a path nobody can paste.
    return textwrap.wrap(line, width, break_on_hyphens=False, break_long_words=False)


def _comment_lines(container, lines, indent=""):
    for line in lines:
        for part in _wrap(line, WIDTH - 2 - len(indent)) or [""]:
            container.add(tomlkit.comment(indent + part))


def _toml_value(value):
    """Plain data as tomlkit items: dicts inline (one line per key stays readable)."""
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for k, v in value.items():
            table[k] = _toml_value(v)
        return table
    if isinstance(value, (list, tuple)):
        array = tomlkit.array()
        for v in value:
            array.append(_toml_value(v))
        return array
    return tomlkit.item(value)


def _element(value, note=()):
    """One [[table]] element: nested dicts of scalars stay inline (match = {...})."""
    table = tomlkit.table()
    for line in _wrapped(note):
        table.add(tomlkit.comment(line))
    for k, v in value.items():
        table[k] = _toml_value(v)
    return table


def _commented(entry):
    """The TOML an entry would be, as comment lines."""
    doc = tomlkit.document()
    _place(doc, entry)
    return ["  " + line if line else "" for line in tomlkit.dumps(doc).strip().splitlines()]


def _container(doc, path, holder=False):
    """The table at a dotted path, made when missing (super tables for the
    levels that only hold others; ``holder``: the last one only holds an array)."""
    node = doc
    for i, part in enumerate(path):
        if part not in node:
            node.add(part, tomlkit.table(is_super_table=holder or i < len(path) - 1))
        node = node[part]
    return node


def _place(doc, entry, note=False):
    """Put the entry in the document; ``note``: its comment lines just above it."""
    lines = entry.note if note else ()
    path = _path(entry)
    if entry.array:
        parent = _container(doc, path[:-1], holder=True) if len(path) > 1 else doc
        if path[-1] not in parent:
            parent.add(path[-1], tomlkit.aot())
        parent[path[-1]].append(_element(entry.value, lines))
        return
    table = _container(doc, path)
    for line in _wrapped(lines):
        table.add(tomlkit.comment(line))
    table.add(entry.key, _toml_value(entry.value))


def _path(entry):
    return entry.table.split(".") if entry.table != "sysctl" else ["sysctl"]


def _ordered(entries):
    """Entries in the families' order; within a table, what is set before what is asked, so an asked key
    lands in the table that is already written."""
    first = {}
    for i, e in enumerate(entries):
        first.setdefault(e.table, i)
    return sorted(entries, key=lambda e: (first[e.table], 1 if e.question and not e.array else 0))


def _open_table(doc, entry):
    """The written (not super) table an asked key belongs in, or None."""
    node = doc
    for part in _path(entry):
        if part not in node:
            return None
        node = node[part]
    if isinstance(node, tomlkit.items.Table) and not node.is_super_table():
        return node
    return None


def render(rec):
    """The policy file's text."""
    doc = tomlkit.document()
    _comment_lines(doc, rec.header)
    doc.add(tomlkit.nl())
    head = tomlkit.table()
    head.add("name", "site")
    head.add("description", rec.description)
    head.add("extends", rec.extends)
    doc.add("policy", head)
    for entry in _ordered(rec.entries):
        if entry.extends:
            continue
        inside = _open_table(doc, entry) if entry.question and not entry.array else None
        if inside is not None:
            # Asked about a key of a table the policy already has: the key alone, so un-commenting it
            # does not define the table twice.
            _comment_lines(inside, list(entry.note) + ["QUESTION: " + entry.question])
            for line in tomlkit.dumps({entry.key: _toml_value(entry.value)}).strip().splitlines():
                inside.add(tomlkit.comment("  " + line))
            continue
        if entry.question or not entry.sets:
            # Comments between tables: a table's trailing comments read as its own, so each starts with a blank line.
            doc.add(tomlkit.nl())
            _comment_lines(doc, entry.note)
            if entry.question:
                _comment_lines(doc, ["QUESTION: " + entry.question])
                for line in _commented(entry):
                    doc.add(tomlkit.comment(line.rstrip()))
            continue
        _place(doc, entry, note=True)
    return tomlkit.dumps(doc)


def _wrapped(lines):
    return [part for line in lines for part in (_wrap(line, WIDTH - 2) or [""])]


def to_json(rec):
    return {"extends": rec.extends, "entries": [e.to_json() for e in rec.entries], "policy": rec.policy_data(),
            "problems": list(rec.problems)}
