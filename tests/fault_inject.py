"""Fault injection into one write kind, for tests/test_rollback_faults.py and
for the driver it runs inside a network namespace (so no pytest here).

``arm(setattr_, kind, nth, mode)`` hooks the ``nth`` op of ``kind`` that a
run performs:

``perform``  it raises ``error(kind, "perform")`` before its write lands;
``restore``  its write lands, then an injected OSError fails the run, and its
             restore raises ``error(kind, "restore")``: never an OSError, but
             what the kind's own library raises (NetlinkError, DatabaseError)
             or a plain bug (RuntimeError, ValueError...).
"""
import errno
import subprocess


class DatabaseError(Exception):
    """Like ``oracledb.DatabaseError`` (oracledb.Error -> Exception, not
    OSError); python-oracledb is not a test dependency."""


def _netlink(code, message):
    from pyroute2.netlink.exceptions import NetlinkError
    return NetlinkError(code, message)


def error(kind, mode):
    """A new exception for ``kind`` failing in ``mode``."""
    if mode == "perform":
        if kind == "netdev":
            return _netlink(errno.EOPNOTSUPP, "Operation not supported")
        if kind == "sql":
            return DatabaseError("ORA-02097: parameter cannot be modified because specified value is invalid\n"
                                 "ORA-00068: invalid value for parameter")
        return OSError(errno.EINVAL, "Invalid argument (injected in %s.perform)" % kind)
    return {"value": lambda: RuntimeError("sysfs attribute went away (injected)"),
            "file": lambda: ValueError("bad bytes in the journal (injected)"),
            "command": lambda: subprocess.SubprocessError("host tool state unknown (injected)"),
            "blockattr": lambda: RuntimeError("queue attribute went away (injected)"),
            "multipath": lambda: subprocess.SubprocessError("multipathd state unknown (injected)"),
            "netdev": lambda: _netlink(errno.EBUSY, "Device or resource busy"),
            "cgroup": lambda: LookupError("cgroup hierarchy unmounted (injected)"),
            "sql": lambda: DatabaseError("ORA-01031: insufficient privileges\nORA-06512: at line 1"),
            }[kind]()


def arm(setattr_, kind, nth, mode, restore_error=None):
    """Hook the nth performed op of ``kind``; ``restore_error`` (a callable
    returning an exception) replaces ``error(kind, "restore")``. Returns a log:
    ``target`` (the hooked op, None if the run never reached it), ``restores``
    (calls of its restore) and ``error`` ([class name, message] raised)."""
    from numatune.apply import kinds
    module = kinds.KINDS[kind]
    real_perform, real_restore = module.perform, module.restore
    log = {"target": None, "restores": 0, "error": None}
    hooked = {"n": 0, "op": None}

    def perform(root, op):
        hooked["n"] += 1
        if hooked["n"] != nth:
            return real_perform(root, op)
        hooked["op"] = op
        if mode == "perform":
            log["target"] = dict(op)
            _raise(log, kind, "perform")
        real_perform(root, op)
        log["target"] = dict(op)
        raise OSError(errno.EIO, "injected failure after the write")

    def restore(root, op):
        # The op the run journaled is the object perform got.
        if mode != "restore" or op is not hooked["op"]:
            return real_restore(root, op)
        log["restores"] += 1
        _raise(log, kind, "restore", restore_error)

    setattr_(module, "perform", perform)
    setattr_(module, "restore", restore)
    return log


def _raise(log, kind, mode, make=None):
    e = make() if make else error(kind, mode)
    log["error"] = [type(e).__name__, str(e)]
    raise e
