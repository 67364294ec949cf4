"""numatune's review screen (``numatune review``): a Textual app over the
same engine as the CLI. Installed by ``pip install 'numatune[tui]'``; the
core never imports this package."""
from numatune.errors import UsageError

__all__ = ["run"]


def run(root, policy, only=None, skip=None):
    """Open the app on what `numatune review` validated (numatune.commands:
    the root, the policy, --only/--skip, a terminal). Returns the exit status."""
    try:
        import textual  # noqa: F401
    except ImportError:
        raise UsageError("the review screen needs Textual, which is not installed",
                         "pip install 'numatune[tui]' (or the numatune-tui RPM)")
    from .app import ReviewApp
    app = ReviewApp(root, policy, only=only, skip=skip)
    app.run()
    return app.return_code or 0
