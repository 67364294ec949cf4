"""Command line: ``numatune plan | apply | confirm | revert | history | facts | check | snapshot | policy |
recommend | review``.

Exit status: 0 done, 1 a failure during apply/revert (after rollback), or an
apply that the kernel took in part (a HugePages pool filled less than asked:
the finding says how much), or a revert that left values alone or failed, 2
bad input, including another run holding the lock
(/var/lib/numatune/lock), not being root, and a host that drifted from a
saved plan. ``check`` follows the Nagios convention instead: 0 compliant, 1
warning, 2 critical, 3 could not check.
"""
import errno
import sys

import numatune
from numatune import __version__
from numatune.errors import NumatuneError, missing_library


def __getattr__(name):
    # The parser moved to numatune.parser (imported only when a command runs);
    # `from numatune.cli import build_parser` and `cli.COMMANDS` still work.
    if name.startswith("__"):
        raise AttributeError(name)
    from numatune import parser
    try:
        return getattr(parser, name)
    except AttributeError:
        raise AttributeError("module 'numatune.cli' has no attribute %r" % name) from None


def _few_collections():
    """A run's facts and plan are a million small dicts, lists and changes that
    all live until it ends and hold no reference cycles: the cyclic collector's
    frequent passes over them cost a tenth of a giant host's plan and free
    nothing. It runs rarely instead (the review screen, long-lived, keeps the default)."""
    import gc
    gc.set_threshold(100000, 50, 1000)


def _hint_context(args):
    from numatune.report.hints import context
    return context(getattr(args, "root", "/"), getattr(args, "policy", ()))


def main(argv=None):
    """Run one command with stdout and stderr guarded (numatune.apply.outstreams):
    a failing write never ends in a traceback, and the exit status is what the
    command did, with one line on the stream that still works (none for a
    closed pipe: the reader has what it wanted)."""
    from numatune.apply import outstreams
    saved = sys.stdout, sys.stderr
    out = sys.stdout = outstreams.GuardedStream(saved[0], "stdout")
    err = sys.stderr = outstreams.GuardedStream(saved[1], "stderr")
    leaving = None
    try:
        try:
            status = _interruptible(argv)
        except SystemExit as e:  # argparse: --help, --version, a bad flag
            leaving, status = e, e.code
        out.flush()
        if out.failure is not None:
            outstreams.silence(saved[0])
            if not isinstance(out.failure, BrokenPipeError):
                # A reader that left (`| head`) took what it wanted: nothing to say, as with `git log | head`.
                err.write(outstreams.describe(out))
        err.flush()
        if err.failure is not None:
            outstreams.silence(saved[1])
    finally:
        sys.stdout, sys.stderr = saved
    if leaving is not None:
        raise leaving
    if argv is None:
        _leaving_soon()
    return status


def _leaving_soon():
    """The program ends when main returns: its objects (a giant host's facts and
    plan, a million of them, held by the families' caches) are set aside from
    the cyclic collector, so that the interpreter's last collection at exit does
    not walk them all (a tenth of a second) just before it frees them anyway."""
    import gc
    gc.freeze()


def _interruptible(argv):
    # From the first line: a Ctrl-C while Python loads numatune is one line too, not a traceback.
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _main(argv)
    except KeyboardInterrupt:
        # apply says itself what became of the host once it runs (numatune.commands.cmd_apply); an
        # interrupt reaching here came before, or in a command that never writes.
        command = next((a for a in argv if not a.startswith("-")), None)
        sys.stderr.write("numatune: interrupted%s\n" % ("" if command in ("revert", "confirm", "review")
                                                         else ": nothing changed"))
        return 130
    except OSError as e:
        # Out of descriptors or memory where no read of the host's was under way (loading a module of
        # numatune's own): the user's to fix, one line; Root's reads say so themselves (ExhaustedError).
        from numatune.errors import ExhaustedError
        if e.errno not in (errno.EMFILE, errno.ENFILE, errno.ENOMEM):
            raise
        sys.stderr.write("numatune: %s\n" % ExhaustedError(e.filename or "numatune's own files", e))
        return ExhaustedError.exit_status


def _main(argv):
    numatune.ARGV = list(argv)   # what the journal records as this run's command line
    try:
        return _run(argv)
    finally:
        numatune.ARGV = None


def _run(argv):
    if argv[:1] == ["--version"]:
        # What argparse would print, without importing it (and its gettext, shutil, locale):
        # the version is asked for by scripts and inventories, many times over.
        sys.stdout.write("numatune %s\n" % __version__)
        raise SystemExit(0)
    from numatune.parser import build_parser, subparser
    parser = build_parser(argv)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            # An unknown flag belongs to the subcommand: point to its help, not the top-level one.
            subparser(parser, args.command).error("unrecognized arguments: %s" % " ".join(extra))
    except SystemExit as e:
        # check speaks Nagios: a wrong flag is "could not check" (3), not CRITICAL (2).
        if e.code == 2 and next((a for a in argv if not a.startswith("-")), None) == "check":
            raise SystemExit(3)
        raise
    if args.command != "review":
        _few_collections()
    try:
        try:
            # Imported inside: a Ctrl-C while the commands load is an interrupt like any other.
            from numatune import commands
            return getattr(commands, "cmd_" + args.command)(args)
        except ModuleNotFoundError as e:
            # An optional library (an extra) missing: one line naming it, not a traceback.
            error = missing_library(e)
            if error is None:
                raise
            raise error from None
    except NumatuneError as e:
        # A command the hint names repeats this run's --root and --policy: pasted, it aims where this one did.
        from numatune.report.hints import carry
        sys.stderr.write("numatune: %s\n" % carry(str(e), _hint_context(args)))
        if args.command == "check":
            return 3
        return e.exit_status


if __name__ == "__main__":
    sys.exit(main())
