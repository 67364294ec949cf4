"""The planned changes as a begin record holds them: what a rule's changes
over many targets share, once (issue #38).

One storage rule over 5,120 devices made 5,120 changes alike but for their
device: the same area, desired value, why, scope, flags and write kind. The
begin record listed each whole (19 MB for a giant host's 33,494 changes,
encoded at apply and parsed again at revert). Now each distinct set of the
fields a change shares is in ``shared`` once (its ``why`` as an index into
``whys``, each text once), and a change keeps what is its own: its id,
target, current value, action, the index of its shared fields
(``shared_at``) and, where every write names a path, its writes' ``paths``
(the writes' other fields are shared).

Journals written before hold each change whole (or with ``why_at`` only):
``expand`` leaves such a change as it is, and ``journal.with_whys`` puts the
text back as before. An index that names nothing (an edited record) is left
as it is, not guessed.
"""
import json

from numatune.model import _fields_dict

# A change's own fields; every other field (and its writes but their paths) may be shared.
OWN = ("id", "target", "current", "action")


def _key(fields):
    """A hashable key equal only for equal fields of equal types (True is
    not 1 here: a shared field must come back as it was planned)."""
    try:
        key = tuple(fields.items())
        hash(key)
    except TypeError:
        return json.dumps(fields, sort_keys=True, default=repr)
    return key + tuple(map(type, fields.values()))


def index_of(text, at, texts):
    """``text``'s index in ``texts`` (``at``: text -> index), appended the first time it is seen."""
    i = at.get(text)
    if i is None:
        i = at[text] = len(texts)
        texts.append(text)
    return i


def compact(changes):
    """(changes, shared, whys) of model Changes for the begin record."""
    out, shared, whys, groups, why_at = [], [], [], {}, {}
    for change in changes:
        fields = _fields_dict(change)
        writes = fields.pop("writes", [])
        own = {k: fields.pop(k) for k in OWN if k in fields}
        templates = [w.to_json() for w in writes]
        paths = [t.pop("path", None) for t in templates]
        if not all(isinstance(p, str) for p in paths):
            own["writes"], templates = [w.to_json() for w in writes], None
        key = (_key(fields), None if templates is None else tuple(_key(t) for t in templates))
        at = groups.get(key)
        if at is None:
            at = groups[key] = len(shared)
            why = fields.get("why")
            if isinstance(why, str):
                del fields["why"]
                fields["why_at"] = index_of(why, why_at, whys)
            if templates is not None:
                fields["writes"] = templates
            shared.append(fields)
        own["shared_at"] = at
        if templates is not None:
            own["paths"] = paths
        out.append(own)
    return out, shared, whys


def expand(changes, shared):
    """The begin record's changes with their shared fields in place (each
    ``why`` still by index: journal.with_whys puts the texts back)."""
    if not isinstance(shared, list):
        return changes
    out = []
    for change in changes:
        i = change.get("shared_at")
        fields = shared[i] if type(i) is int and 0 <= i < len(shared) else None
        if not isinstance(fields, dict):
            out.append(change)
            continue
        whole = {k: v for k, v in fields.items() if k != "writes"}
        whole.update((k, v) for k, v in change.items() if k not in ("shared_at", "paths"))
        paths, templates = change.get("paths"), fields.get("writes")
        if isinstance(paths, list) and isinstance(templates, list) and len(paths) == len(templates) \
                and all(isinstance(t, dict) for t in templates):
            whole["writes"] = [dict(t, path=p) for t, p in zip(templates, paths)]
        elif "paths" in change or "writes" in fields:
            out.append(change)     # writes that do not fit their paths: as recorded
            continue
        out.append(whole)
    return out
