"""Standard output and error that cannot end a run in a traceback.

A command's output is a report of what was done, not part of doing it:
``revert --last > /dev/full`` has restored the host before the first byte
fails, ``check`` has its Nagios status before it prints, and an apply has
committed. So a failing write (ENOSPC, EIO, a closed pipe) is remembered and
the rest of the output dropped; the command finishes and its exit status is
what it did. ``main`` then says it in one line on the stream that still works
(stderr when stdout failed; nothing when both did, nor for a reader that
closed its pipe, as ``| head`` does).
"""
import os


class GuardedStream:
    """A text stream whose write and flush never raise an OSError.

    The first failure is kept in ``failure``; every later write is dropped
    (what reaches the reader is a prefix, never a spliced middle). Everything
    else (isatty, fileno, encoding, buffer) is the wrapped stream's."""

    def __init__(self, stream, name):
        self._stream = stream
        self.name = name
        self.failure = None

    def write(self, text):
        if self.failure is None:
            try:
                return self._stream.write(text)
            except OSError as e:  # BrokenPipeError is an OSError
                self.failure = e
        return len(text)

    def flush(self):
        if self.failure is None:
            try:
                self._stream.flush()
            except OSError as e:
                self.failure = e

    def __getattr__(self, name):
        return getattr(self._stream, name)


def silence(stream):
    """Point the descriptor under ``stream`` at /dev/null, so what is still in
    its buffer goes nowhere when the interpreter flushes at exit instead of
    raising again (Python's documented recipe for SIGPIPE, ``signal`` module
    notes). A stream without a descriptor (a test's StringIO) has nothing to
    flush at exit."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def describe(stream):
    """One line for a stream that failed: which one and the kernel's words."""
    e = stream.failure
    if isinstance(e, BrokenPipeError):
        why = "the reader closed the pipe"
    else:
        why = os.strerror(e.errno) if e.errno else str(e)
    return "numatune: could not write to %s (%s); the rest of the output was dropped\n" % (stream.name, why)
