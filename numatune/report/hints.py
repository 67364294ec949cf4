"""Commands numatune suggests are safe to paste: each repeats the ``--root``
and ``--policy`` the run was given, shell-quoted. A hint without them aims at
the live ``/`` (a pasted ``numatune revert TXID --force`` after a run on a
copy would take the real host's lock, or revert the wrong journal).

Errors are raised deep in the engine, which does not know how the CLI was
called; they name commands in backticks (```numatune revert TXID```) and the
CLI (and the review screen) passes every message through :func:`carry`.
Lines the commands print themselves are built with :func:`command`.
"""
import re

# Which commands take which flags (tests/test_cli_hints.py compares these with the parser). snapshot's
# --root is the host to capture, not the tree this run worked on (`plan --root ARCHIVE` suggests a new one).
TAKES_ROOT = frozenset(("plan", "apply", "revert", "history", "facts", "check", "confirm", "review", "recommend", "boot"))
TAKES_POLICY = frozenset(("plan", "apply", "facts", "check", "review"))

_NAMED = r"`numatune ([a-z]+)([^`]*)`"     # compiled (re's cache) when a hint is printed


def context(root="/", policies=()):
    """The flags a suggested command repeats, as a (root, policies) pair:
    nothing for the live root, which is the default."""
    return (None if root in (None, "", "/") else root), tuple(policies or ())


def context_of(args):
    """What a command this run suggests repeats: its --root and --policy as given."""
    return context(args.root, getattr(args, "policy", ()))


def _flags(name, rest, ctx):
    root, policies = ctx
    out = []
    if root is not None and name in TAKES_ROOT and "--root" not in rest:
        out += ["--root", root]
    if policies and name in TAKES_POLICY and "--policy" not in rest:
        for p in policies:
            out += ["--policy", p]
    return out


def command(name, *words, ctx=(None, ())):
    """``numatune NAME WORDS... --root R --policy P``, every word shell-quoted."""
    from shlex import quote     # here: most runs print no command
    words = [str(w) for w in words]
    return " ".join(["numatune", name] + [quote(w) for w in words + _flags(name, " ".join(words), ctx)])


def carry(text, ctx):
    """``text`` with every backticked `numatune COMMAND ...` given the run's
    --root and --policy (placeholders such as FILE stay as written)."""
    if ctx[0] is None and not ctx[1]:
        return text
    from shlex import quote

    def one(m):
        extra = _flags(m.group(1), m.group(2), ctx)
        return "`numatune %s%s%s`" % (m.group(1), m.group(2), "".join(" " + quote(w) for w in extra))
    return re.sub(_NAMED, one, text)
