"""A journal's records as the tests read and damage them, line by line:
a batch's intents are one "intents" record (numatune/apply/journal_records.py),
so an intent is found inside the record that holds it."""
import json

from numatune.apply.journal_records import expand
from numatune.apply.seal import sealed


def records(path):
    """Each line's record, as written."""
    return [json.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


def intents(recs):
    """Every intent ("intent" records, and those "intents" records hold), in order."""
    return [i for r in recs for i in expand(r) if i.get("t") == "intent"]


def holders(recs):
    """[(record, intent)]: each intent as it is written (its op the journal's
    own object, to edit in place) and the record that holds it."""
    out = []
    for r in recs:
        if r.get("t") == "intent":
            out.append((r, r))
        elif r.get("t") == "intents":
            out += [(r, item) for item in r["intents"]]
    return out


def drop_intent(recs, seq):
    """``recs`` without the intent ``seq``: its own record gone, or taken out
    of its batch's "intents" record, which is sealed again (only that intent lost)."""
    out = []
    for r in recs:
        if r.get("t") == "intent" and r["seq"] == seq:
            continue
        if r.get("t") == "intents" and any(i["seq"] == seq for i in r["intents"]):
            kept = [i for i in r["intents"] if i["seq"] != seq]
            if not kept:
                continue
            r = sealed({k: v for k, v in dict(r, intents=kept, seq=kept[0]["seq"]).items() if k != "sum"})
        out.append(r)
    return out


def text(recs):
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in recs)
