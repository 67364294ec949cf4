"""Confirm or auto-revert: ``apply --confirm-within SECONDS`` and ``confirm``.

An MTU or bonding change can cut off the admin's own SSH session, and with
it the process that applied. So the revert never lives only in that
process: before the first write, apply writes a marker
``/var/lib/numatune/confirm/TXID.json`` and starts a watchdog outside its
own session, a transient systemd timer when systemd runs (detected by
``/run/systemd/system``, not by ``systemd-run`` being installed) or else a
detached ``setsid`` process. At the deadline the watchdog takes the run lock
and, unless ``numatune confirm`` marked the transaction confirmed, reverts it
through the normal journal revert.

Marker states: ``pending`` -> ``confirmed`` | ``reverted`` | ``rolled back``
(the apply failed and undid itself) | ``failed`` (the revert left something).
Run as ``python -m numatune.apply.confirm --root DIR TXID`` it is the watchdog.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from numatune.errors import RefusedError, UsageError
from numatune.apply.journal import STATE_DIR

CONFIRM_DIR = STATE_DIR + "/confirm"
DEFAULT_WINDOW = 120
UNIT = "numatune-confirm-%s"


def marker_path(root, txid):
    return root.join("%s/%s.json" % (CONFIRM_DIR, txid))


def read_marker(root, txid):
    try:
        with open(marker_path(root, txid), encoding="utf-8") as f:
            return json.load(f)
    except (FileNotFoundError, ValueError):
        return None


def write_marker(root, marker):
    path = marker_path(root, marker["txid"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Through the confined writer: no link planted at the marker or its temporary is followed.
    root.write_atomic(root.rel(path), (json.dumps(marker, sort_keys=True) + "\n").encode(), 0o600)


def pending(root):
    out = []
    for name in root.listdir(CONFIRM_DIR):
        if name.endswith(".json"):
            marker = read_marker(root, name[:-5])
            if marker and marker.get("state") == "pending":
                out.append(marker)
    return sorted(out, key=lambda m: m["txid"])


def uses_systemd(root):
    return root.is_live and os.path.isdir("/run/systemd/system")


def watchdog_argv(root, txid):
    return [sys.executable, "-m", "numatune.apply.confirm", "--root", root.path, txid]


def systemd_argv(root, txid, seconds):
    return ["systemd-run", "--quiet", "--unit", UNIT % txid, "--on-active=%ds" % seconds,
            "--timer-property=AccuracySec=1s",
            "--description=numatune: revert %s unless confirmed" % txid] + watchdog_argv(root, txid)


def arm(root, txid, seconds):
    """Write the marker and start the watchdog; before apply writes anything."""
    marker = {"txid": txid, "state": "pending", "seconds": seconds, "deadline": time.time() + seconds,
              "root": root.path, "watchdog": "systemd" if uses_systemd(root) else "setsid"}
    write_marker(root, marker)
    env = dict(os.environ)
    # The watchdog must import this very numatune, installed or not.
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if marker["watchdog"] == "systemd":
        try:
            subprocess.run(systemd_argv(root, txid, seconds), check=True, env=env)
        except (OSError, subprocess.CalledProcessError) as e:
            os.unlink(marker_path(root, txid))
            raise RefusedError("cannot start the confirm watchdog with systemd-run (%s): nothing was changed" % e,
                               "check `systemctl status`, or apply without --confirm-within")
        return marker
    # Its own session: no controlling terminal, so the SSH hangup that may
    # kill the applier does not reach it; it is reparented when we die.
    proc = subprocess.Popen(watchdog_argv(root, txid), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True, env=env)
    marker["pid"] = proc.pid
    write_marker(root, marker)
    return marker


def settle(root, txid, state):
    """The applier's own outcome (apply failed and rolled back)."""
    marker = read_marker(root, txid)
    if marker and marker["state"] == "pending":
        marker["state"] = state
        write_marker(root, marker)


def confirm(root, txid=None):
    """Mark a pending transaction confirmed; returns its marker."""
    from numatune.apply.lock import RunLock
    with RunLock(root):
        waiting = pending(root)
        if txid is None:
            if not waiting:
                raise UsageError("no transaction is waiting for confirmation",
                                 "see `numatune history`; confirmed or reverted ones need nothing")
            if len(waiting) > 1:
                raise UsageError("%d transactions wait for confirmation" % len(waiting),
                                 "name one: %s" % ", ".join(m["txid"] for m in waiting))
            txid = waiting[0]["txid"]
        marker = read_marker(root, txid)
        if marker is None:
            raise UsageError("transaction %s has no confirm window" % txid, "see `numatune history`")
        if marker["state"] != "pending":
            raise UsageError("transaction %s is already %s" % (txid, marker["state"]))
        if time.time() >= marker["deadline"]:
            raise UsageError("too late: the window of transaction %s has closed" % txid,
                             "the watchdog is reverting it; apply again")
        marker["state"] = "confirmed"
        marker["confirmed_at"] = time.time()
        write_marker(root, marker)
    if marker.get("watchdog") == "systemd":
        subprocess.run(["systemctl", "stop", "%s.timer" % (UNIT % txid)], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return marker


def expire(root, txid):
    """At the deadline: revert unless confirmed. Returns the final state."""
    from numatune.apply.journal import Transaction, read_records
    from numatune.apply.lock import RunLock
    from numatune.apply.transaction import revert
    while True:
        try:
            with RunLock(root):
                marker = read_marker(root, txid)
                if marker is None or marker["state"] != "pending":
                    return marker and marker["state"]
                try:
                    tx = Transaction(txid, read_records(root, txid))
                except UsageError:
                    tx = None  # the applier died before its first journal record: nothing was written
                if tx is None or tx.state in ("reverted", "rolled back"):
                    marker["state"] = "rolled back" if tx else "reverted"
                else:
                    _restored, skipped, failed = revert(root, tx)
                    marker["state"] = "failed" if failed else "reverted"
                    marker["left"] = skipped + failed
                marker["expired_at"] = time.time()
                write_marker(root, marker)
                return marker["state"]
        except RefusedError:
            time.sleep(0.2)  # the applier (or another run) still holds the lock


def watch(root, txid):
    while True:
        marker = read_marker(root, txid)
        if marker is None or marker["state"] != "pending":
            return marker and marker["state"]
        left = marker["deadline"] - time.time()
        if left <= 0:
            return expire(root, txid)
        time.sleep(min(left, 0.5))


def window_for(args, changes, root=None):
    """Seconds of confirm window: the flag, else the default when a change
    touches the admin's own connection on the live host (a copy under
    --root carries no session to lose); 0 means none."""
    if args.confirm_within is not None:
        if args.confirm_within < 0:
            raise UsageError("--confirm-within %d: a window cannot be negative" % args.confirm_within,
                             "give seconds, e.g. --confirm-within 120, or 0 for no window")
        return args.confirm_within
    if (root is None or root.is_live) and any(getattr(c, "needs_confirm", False) for c in changes):
        return DEFAULT_WINDOW
    return 0


def countdown(root, txid, out=None, stdin=None, ctx=None):
    """Wait for the verdict, showing the time left; 0 confirmed, 1 reverted.

    On a terminal, typing y confirms here; from anywhere else run
    `numatune confirm TXID`. Killing this process changes nothing: the
    watchdog decides at the deadline."""
    import select
    out = out or sys.stdout
    stdin = stdin or sys.stdin
    tty = stdin.isatty() and out.isatty()
    from numatune.report.hints import command, context
    ctx = ctx or context(root.path)
    out.write("confirm within %ds with `%s`%s, or it is reverted\n"
              % (round(read_marker(root, txid)["deadline"] - time.time()), command("confirm", txid, ctx=ctx),
                 " (or type y here)" if tty else ""))
    out.flush()
    while True:
        marker = read_marker(root, txid) or {"state": "reverted"}
        state = marker["state"]
        if state != "pending":
            break
        left = marker["deadline"] - time.time()
        if tty:
            out.write("\r  %3ds left: confirm? [y] " % max(0, round(left)))
            out.flush()
            ready, _, _ = select.select([stdin], [], [], 1.0)
            if ready and stdin.readline().strip().lower() in ("y", "yes"):
                try:
                    confirm(root, txid)
                except UsageError as e:
                    out.write("\n%s\n" % e)
        else:
            time.sleep(min(max(left, 0.1), 0.5))
    if tty:
        out.write("\n")
    if state == "confirmed":
        out.write("transaction %s confirmed: the changes stay.\n" % txid)
        return 0
    out.write("transaction %s was not confirmed in time: %s.\n" % (txid, state))
    return 1


def main(argv=None):
    from numatune.root import Root
    parser = argparse.ArgumentParser(prog="python -m numatune.apply.confirm",
                                     description="numatune's confirm-window watchdog")
    parser.add_argument("--root", default="/")
    parser.add_argument("txid")
    args = parser.parse_args(argv)
    root = Root(args.root)
    try:
        state = watch(root, args.txid)
    except Exception as e:  # noqa: BLE001 -- detached, no terminal: the marker is where the admin looks
        marker = read_marker(root, args.txid) or {"txid": args.txid}
        marker.update(state="failed", error="%s: %s" % (type(e).__name__, e))
        write_marker(root, marker)
        raise
    return 0 if state in ("confirmed", "reverted", "rolled back") else 1


if __name__ == "__main__":
    sys.exit(main())
