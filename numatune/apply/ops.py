"""What apply and revert share: how writes are grouped into batches (one
fsync for a batch's records), and how an op, an undo and an error are said."""
import datetime

from numatune.apply import kinds as appliers
from numatune.errors import NumatuneError


class VerifyError(Exception):
    """What verify after apply found still wrong: said as is, then rolled back."""


def _now():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


# Group commit: the generic kinds whose capture reads only their own target are
# journaled in batches (one fsync for a batch's intents) as long as no two writes
# of a batch share a target: a second edit of a file must see the first. Any other
# kind (a command, netlink, a cgroup, SQL) may change what later captures read,
# so it is a batch of its own, captured after everything before it was written.
BATCHABLE = frozenset(("value", "file"))
BATCH = 256


def _new_batch(kind, path, targets, size):
    """Whether a write starts a new batch, in apply and in revert alike: a
    kind outside BATCHABLE goes alone, and no batch holds a target twice (a
    later write's capture or decision must see the earlier one done)."""
    return kind not in BATCHABLE or path in targets or size >= BATCH


def _one_line(text):
    # The CLI prints one line per error; ORA- errors and tool output come in several.
    return " / ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _error_text(e):
    """``Type: message`` for the journal: a NetlinkError says "(16, 'Device or
    resource busy')", which means little without its class."""
    text = _one_line(e)
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


def _reason(e, root=None):
    """What went wrong, for the user: an OSError in its own words (the file
    relative to --root when ``root`` is given), anything else with its class."""
    if isinstance(e, (VerifyError, NumatuneError)):
        return _one_line(e) or type(e).__name__
    if not isinstance(e, OSError):
        return _error_text(e)
    reason = _one_line(e.strerror or e) or type(e).__name__
    if root is not None and e.filename:
        reason = "%s: %s" % (reason, root.rel(str(e.filename)))
    return reason


def _describe(op):
    # Naming a failed undo must not fail too: fall back to the journal's own fields.
    try:
        return appliers.for_op(op).describe(op)
    except Exception:
        return "%s write to %s" % (op.get("kind", "unknown"), op.get("path", "?"))


def describe_undo(op, kind=None):
    """What an undo did, in the undo direction ("1024 -> 128 restored"): a
    kind's own ``describe_undo``, else its ``describe`` of the op with before
    and after swapped, else "undid" and the forward description. ``kind``:
    the op's kind module when the caller has it already (revert)."""
    try:
        if kind is None:
            kind = appliers.for_op(op)
        if hasattr(kind, "describe_undo"):
            return kind.describe_undo(op)
        if "before" in op and "after" in op:
            return kind.describe(dict(op, before=op["after"], after=op["before"])) + " restored"
    except Exception:
        pass
    return "undid " + _describe(op)
