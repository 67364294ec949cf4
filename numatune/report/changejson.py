"""A plan's changes as JSON text straight from the objects: the text
``jsonout`` would write for ``change.to_json()``, without the dict per change
and per write that a giant host's 33,000 changes cost to build and to encode
key by key. The document keeps its per-change form (a contract); only the way
to it is shorter. Anything off the usual shape (a value that is not a string,
an attribute set on the side) takes the dict path, so the text is the same."""
from json.encoder import encode_basestring_ascii as _string

from numatune.model import Change, Write, names_of
from numatune.report import jsonout

_NAMES = names_of(Change)
# The fields change_text unpacks, in order: a field added to Change takes the dict path until it is named here.
_KNOWN = ("id", "area", "target", "current", "desired", "scope", "action", "why", "reboot_required",
          "restart_required", "risk", "rule", "writes", "needs_confirm", "family", "partial_ok", "running_ok",
          "drift_severity", "boot_key")
_FAST = _NAMES == _KNOWN
# Each key and its separators said once: the dict path encodes 19 keys per change.
_CHANGE = "{" + ", ".join("%s: %%s" % _string(n) for n in _KNOWN) + "}"
_VALUE_WRITE = '{"kind": "value", "path": %s, "value": %s, "format": %s}'


def _flag(value):
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise TypeError("not a bool")    # 1, "" or None: json writes them as they are, the dict path does


def _write(w):
    if w.__class__ is Write and w.kind == "value":     # Write.to_json's own reading of a value write
        value = w.value
        return _VALUE_WRITE % (_string(w.path), "null" if value is None else _string(value), _string(w.format))
    return jsonout.encode(w.to_json())


def _writes(writes):
    if writes.__class__ is not list:
        raise TypeError("not a list")    # a tuple, None: the dict path
    if len(writes) == 1:
        return "[" + _write(writes[0]) + "]"
    return "[" + ", ".join(map(_write, writes)) + "]"


def change_text(change, _false="false"):
    """``jsonout.encode(change.to_json())``, the same text, made faster on the usual shape."""
    d = change.__dict__
    if _FAST and tuple(d) == _NAMES:
        (cid, area, target, current, desired, scope, action, why, reboot, restart, risk, rule, writes, confirm,
         family, partial, running, drift, boot_key) = d.values()
        try:
            if reboot is False and restart is False and confirm is False and partial is False and running is False:
                reboot = restart = confirm = partial = running = _false     # the usual change: no flag set
            else:
                reboot, restart, confirm, partial, running = map(_flag, (reboot, restart, confirm, partial, running))
            return _CHANGE % (
                _string(cid), _string(area), _string(target), "null" if current is None else _string(current),
                _string(desired), _string(scope), _string(action), _string(why), reboot, restart,
                _string(risk), _string(rule), _writes(writes), confirm, _string(family), partial,
                running, _string(drift), _string(boot_key))
        except TypeError:
            pass    # a value of another type: json's own rules for it, below
    return jsonout.encode(change.to_json())


def encoded_changes(changes):
    """The changes' JSON texts, for ``Plan.to_json(changes=...)``: jsonout writes them as they are."""
    return jsonout.Encoded(map(change_text, changes))
