"""Ctrl-C while the host is being written: held, then acted on between writes.

Python raises KeyboardInterrupt at whatever bytecode runs when SIGINT
arrives: between a journal intent and its fsync, half-way through a
rollback, or after the commit but before the caller learns the txid. While a
transaction runs, SIGINT only sets a flag; the transaction checks it between
writes and before its commit (and rolls back from there, with a second
Ctrl-C held too), so the journal always says what the host is in.

Only the main thread can take signals (the review screen applies in a
worker, where Ctrl-C never reaches the run): elsewhere this does nothing.
"""
import signal
import threading


class HeldInterrupt:
    def __init__(self):
        self.requested = False
        self._previous = None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._hold)
        return self

    def _hold(self, signum, frame):
        self.requested = True

    def check(self):
        """KeyboardInterrupt if Ctrl-C came since the run began (the caller rolls back)."""
        if self.requested:
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False
