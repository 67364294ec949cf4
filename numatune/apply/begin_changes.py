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
from operator import itemgetter

from numatune.model import Write, _fields_dict, names_of

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
    quick, fast = {}, _Quick()
    for change in changes:
        # Most changes are alike one before them: found by a key made without
        # their fields copied or their writes turned to JSON (0.2 s on a giant host).
        key = fast.key(change)
        try:
            at = quick.get(key)
        except TypeError:
            at = key = None     # a field or value that is not hashable: compact's own way
        if at is not None:
            d = change.__dict__
            out.append({"id": d["id"], "target": d["target"], "current": d["current"], "action": d["action"],
                        "shared_at": at, "paths": [w.path for w in d["writes"]]})
            continue
        out.append(_own(change, shared, whys, groups, why_at))
        if key is not None:
            quick[key] = out[-1]["shared_at"]
    return out, shared, whys


def _own(change, shared, whys, groups, why_at):
    """What the begin record holds of ``change`` as its own, its shared fields added to ``shared`` if new."""
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
    return own


class _Quick:
    """A key for a Change equal to another's exactly when compact's would be:
    its class (which names the fields), its shared fields' values and their
    types, and each value write's value and format with their types. None
    where that cannot be told so (another kind of write, a path not a
    string, a record with more than its fields): compact's own way then, as
    for a key that is not hashable."""

    def __init__(self):
        self.cls = None

    def key(self, change):
        d = change.__dict__
        if type(change) is not self.cls:
            self._learn(type(change))
        if len(d) != self.count:
            return None
        values = self.shared(d)
        writes = []
        for w in d["writes"]:
            wd = w.__dict__
            path, value, form = wd.get("path"), wd.get("value"), wd.get("format")
            if type(w) is not Write or wd.get("kind") != "value" or type(path) is not str:
                return None
            writes.append((value, type(value), form, type(form)))
        return self.cls, values, tuple(map(type, values)), tuple(writes)

    def _learn(self, cls):
        names = names_of(cls)
        shared = [n for n in names if n not in OWN and n != "writes"]
        # Every field but a change's own and its writes, in field order (as compact's key holds them);
        # a record with fewer has no quick key (itemgetter of one name gives no tuple).
        self.cls, self.count = cls, len(names) if len(shared) > 1 and "writes" in names else -1
        self.shared = itemgetter(*shared) if len(shared) > 1 else None


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
