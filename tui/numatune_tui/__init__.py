"""numatune's review screen (``numatune review``): a Textual app over the
same engine as the CLI. Installed by ``pip install 'numatune[tui]'``; the
core never imports this package."""
import os
import sys

from numatune.errors import UsageError

__all__ = ["run"]


def run(args):
    """Validate what was given, as every command does, then open the app.
    Returns the exit status."""
    try:
        import textual  # noqa: F401
    except ImportError:
        raise UsageError("the review screen needs Textual, which is not installed",
                         "pip install 'numatune[tui]' (or the numatune-tui RPM)")
    from numatune import engine
    from numatune.root import Root
    engine.check_areas(args.only)
    engine.check_areas(args.skip)
    from numatune import snapshot
    if snapshot.is_archive(args.root):
        raise UsageError("--root %s is a snapshot archive: review can apply, so it needs a directory" % args.root,
                         "extract it: mkdir DIR && tar -xzf %s -C DIR, then --root DIR "
                         "(or `numatune plan --root %s`)" % (args.root, args.root))
    if not os.path.isdir(args.root):
        raise UsageError("--root %s: no such directory" % args.root)
    root = Root(args.root)
    policy = engine.load_policy(args.policy, root)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("review needs a terminal", "use `numatune plan` (or `--format json`) in scripts")
    from .app import ReviewApp
    app = ReviewApp(root, policy, only=args.only, skip=args.skip)
    app.run()
    return app.return_code or 0
