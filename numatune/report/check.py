"""The ``check`` command: plan without writing, judge, report.

Its exit status is Nagios's (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), so any
failure to check, a bad policy included, is 3 and still reported in the
asked format: a monitor must never mistake "could not check" for drift.
"""
import contextlib
import datetime
import os
import sys

from numatune.report import compliance, render, render_error, writer
from numatune.report.text import status_line
from numatune.errors import NumatuneError, missing_library


class CheckTimeout(NumatuneError):
    """-t/--timeout passed before the check had read the host (Nagios: UNKNOWN)."""


@contextlib.contextmanager
def _deadline(seconds):
    """SIGALRM after ``seconds`` raises CheckTimeout in the check (it only reads: nothing to undo).
    The report is rendered and written after the alarm is off, so a file is never cut short."""
    if not seconds:
        yield
        return
    import signal   # here: only a check with -t/--timeout sets an alarm

    def expired(signum, frame):
        raise CheckTimeout("timed out after %d s (-t/--timeout) before the check finished reading the host"
                           % seconds, "give it longer, or narrow it with --only/--skip")
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _thresholds(args):
    warning, critical = getattr(args, "warning", None), getattr(args, "critical", None)
    if warning is None and critical is None:
        return None     # without -w/-c the worst rule decides: numatune.report.thresholds is not loaded
    from numatune.report import thresholds
    return thresholds.parse(warning, critical)


def run(args, prepare, make_plan):
    """``prepare(args) -> (root, policy)`` and ``make_plan`` come from the CLI
    so the check sees exactly what ``plan`` would."""
    now = datetime.datetime.now(datetime.timezone.utc)
    try:
        limits = _thresholds(args)
        with _deadline(getattr(args, "timeout", None)):
            root, policy = prepare(args)
            plan, facts = make_plan(root, policy, args.only, args.skip)
            report = compliance.build(plan, policy.data, facts, now=now, policy_name=policy.name)
        report.thresholds = limits
        text, status, line = render(report, args.format, to_file=bool(args.out)), report.status, status_line(report)
    except NumatuneError as e:
        text, status, line = render_error(str(e), args.format, now, args.out), 3, "numatune UNKNOWN - %s" % e
    except ModuleNotFoundError as e:
        error = missing_library(e) or e  # a missing extra is UNKNOWN with one line, never a traceback
        if error is e:
            import traceback  # a crash only: not on every check's start
            traceback.print_exc()
        text, status, line = render_error(str(error), args.format, now, args.out), 3, "numatune UNKNOWN - %s" % error
    except Exception as e:  # a bug must read UNKNOWN to a monitor, not WARNING (Python's exit 1)
        import traceback
        traceback.print_exc()
        message = "internal error: %s: %s" % (type(e).__name__, e)
        text, status, line = render_error(message, args.format, now, args.out), 3, "numatune UNKNOWN - " + message
    if status == 3 and (args.out or args.format not in ("text", "nagios")):
        sys.stderr.write(line + "\n")
    if args.out:
        try:
            (writer(args.format) or write_atomically)(args.out, text)
        except OSError as e:
            sys.stderr.write("numatune: cannot write %s: %s\n" % (args.out, e.strerror or e))
            return 3
        # The file holds the report; the journal (stdout under systemd) gets one line.
        if status != 3:
            print(line)
    else:
        sys.stdout.write(text)
    return status


def write_atomically(path, text):
    """Write ``path`` through a temporary file and a rename in the same
    directory, so a reader (node_exporter) sees the old file or the new one,
    never half of one. The temporary name does not end in .prom on purpose."""
    import tempfile     # only --output needs it; a plain check starts faster without
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".%s." % os.path.basename(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes 0600; node_exporter runs as another user and must read it.
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
