"""Who ran a transaction, how, with which policy, on which host (issue #37):
the "audit" field of a journal's begin record, and how history reads it back
(an auto-reverted transaction and a boot replay named as such).

The user is the login behind sudo when there is one (``SUDO_USER``), the
effective user otherwise; the policy is named and hashed (SHA-256 of its
merged data as canonical JSON), so two transactions under the same policy
text carry the same hash whatever file it was read from."""
import hashlib
import json
import os
import sys

import numatune


def policy_hash(data):
    text = json.dumps(data or {}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _user():
    try:
        import pwd
        name = pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        name = str(os.geteuid())
    sudo = os.environ.get("SUDO_USER")
    return "%s (sudo from %s)" % (name, sudo) if sudo and sudo != name else name


def record(root, command, policy):
    """The begin record's audit field."""
    host = root.read_value("/proc/sys/kernel/hostname") or root.read_value("/etc/hostname") or ""
    name = ((policy or {}).get("policy") or {}).get("name") or ""
    argv = numatune.ARGV if numatune.ARGV is not None else sys.argv[1:]    # the command line main() was given
    return {"user": _user(), "argv": ["numatune"] + [str(a) for a in argv],
            "kind": "boot replay" if command == "boot" else command,
            "policy": {"name": name, "sha256": policy_hash(policy)}, "host": host, "root": root.path}


def of(tx):
    """What history shows of a transaction: the audit field (empty values for
    a journal written before it existed), plus whether the confirm watchdog
    reverted it."""
    begin = tx.begin or {}
    audit = begin.get("audit") if isinstance(begin.get("audit"), dict) else {}
    policy = audit.get("policy") if isinstance(audit.get("policy"), dict) else {}
    argv = audit.get("argv") if isinstance(audit.get("argv"), list) else []
    kind = audit.get("kind") or ("boot replay" if begin.get("command") == "boot" else begin.get("command") or "")
    return {"user": str(audit.get("user") or ""), "command_line": " ".join(str(a) for a in argv),
            "kind": str(kind), "policy": {"name": str(policy.get("name") or ""),
                                          "sha256": str(policy.get("sha256") or "")},
            "host": str(audit.get("host") or "")}


def auto_reverted(root, tx):
    """Whether the confirm-within watchdog reverted ``tx`` at its deadline."""
    if tx.state != "reverted":
        return False
    # The watchdog's marker (numatune.apply.confirm writes it), read here: confirm imports the transaction code.
    from numatune.apply.journal import STATE_DIR
    try:
        with open(root.join("%s/confirm/%s.json" % (STATE_DIR, tx.txid)), encoding="utf-8") as f:
            marker = json.load(f)
    except (OSError, ValueError):
        return False
    return bool(marker) and marker.get("state") == "reverted" and "expired_at" in marker
