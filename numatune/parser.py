"""numatune's argument parser: every command, its options and their help.

Imported only when a command runs or asks for help (numatune.cli): `numatune
--version` needs neither argparse nor this table.
"""
import argparse
import os
import sys

from numatune import __version__


ROOT_HELP = "read and write under DIR instead of / (a copy, or a `numatune snapshot` directory)"
FORMAT_HELP = "output format (default: text)"
TXID_HELP = "a transaction id from `numatune history`"


def _columns():
    """shutil.get_terminal_size().columns without importing shutil (and the
    compression modules it loads): argparse asks for it at every option added."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        # One line and exit 2, like every other bad input; a misspelt choice gets a suggestion.
        import difflib
        import re
        m = re.match(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(3))
            close = difflib.get_close_matches(m.group(2), choices, 1)
            what = "command" if m.group(1) == "COMMAND" else m.group(1)
            message = "unknown %s %r (%s)" % (what, m.group(2), "did you mean %r?" % close[0] if close
                                              else "choose from " + ", ".join(choices))
        sys.stderr.write("numatune: %s (see `%s --help`)\n" % (message, self.prog))
        sys.exit(2)


def _seconds(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("%r is not a whole number of seconds >= 1" % text)
    return value


def _common(p, formats=("text", "json")):
    from numatune.families.registry import selectors
    p.add_argument("--root", default="/", metavar="DIR", help=ROOT_HELP)
    p.add_argument("--policy", action="append", default=[], metavar="FILE|NAME",
                   help="policy file or shipped name; repeat to stack (default: "
                        "/etc/numatune/policy.toml, else oracle-numa)")
    p.add_argument("--only", action="append", default=[], metavar="AREA",
                   help="only rules of this area or family: %s (repeatable; one that selects nothing is an "
                        "error)" % ", ".join(selectors()))
    p.add_argument("--skip", action="append", default=[], metavar="AREA",
                   help="skip rules of this area or family (repeatable)")
    if formats:
        p.add_argument("--format", choices=formats, default="text", help=FORMAT_HELP)
        p.add_argument("--verbose", "-v", action="store_true",
                       help="text: every change and value in full, not grouped by rule (JSON is always full)")


COMMANDS = ("plan", "apply", "revert", "history", "facts", "check", "confirm", "boot", "snapshot", "policy",
            "recommend", "review")
MAX_WINDOW = 86400  # a day: a watchdog armed for longer is a window nobody confirms


def _keep(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError("%r is not a whole number >= 0" % text)
    return value


def _window(text):
    """--confirm-within: whole seconds from 0 to a day (99999999999999999999 would never fire)."""
    try:
        seconds = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text)
    if seconds < 0:
        raise argparse.ArgumentTypeError("%s: a confirm window cannot be negative (0: no window)" % text)
    if seconds > MAX_WINDOW:
        raise argparse.ArgumentTypeError("%s is out of range: 0 (no window) to %d seconds (a day)"
                                         % (text, MAX_WINDOW))
    return seconds


def build_parser(argv=None):
    """The parser; given ``argv``, only the command it names gets its options
    (the others their name and help, for the list and a misspelling's
    suggestion): argparse builds a help formatter for every option added,
    and a `check` of three sysctls spent a twentieth of its run on the
    other commands' options. Given an ``argv`` that names no command
    (`--version`, `--help`, a misspelt command), no command gets its options:
    those need only the names, and the options' help imports the family registry."""
    word = next((a for a in argv or () if not a.startswith("-")), None)
    only = word if word in COMMANDS else None if argv is None else ""
    parser = _Parser(prog="numatune", description="Declarative NUMA and memory tuning for Oracle hosts.")
    parser.add_argument("--version", action="version", version="numatune " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, help="what to do")
    sub.required = True
    # A command given, and no top-level -h before it to list them all: the other commands need no parser
    # either (argparse asks gettext for a dozen texts per parser, a fiftieth of a small check).
    alone = only if only and not {"-h", "--help"} & set(argv[:argv.index(only)]) else None

    def command(name, **kw):
        return sub.add_parser(name, **kw) if alone in (None, name) else None

    p = command("plan", help="show what apply would change")
    if only in (None, "plan"):
        _common(p)
        p.add_argument("--out", metavar="FILE", help="also save the plan as JSON for `apply --plan`")
        p.add_argument("--diff", action="store_true",
                       help="also show the unified diff of every file apply would edit (text output)")
        p.add_argument("--list-policies", action="store_true", help="list the shipped policies and exit")
        p.add_argument("--exit-code", action="store_true",
                       help="exit 1 when there is something to change, 0 when nothing (like git diff --exit-code)")

    p = command("apply", help="apply the plan, journaled and reversible")
    if only in (None, "apply"):
        _common(p)
        p.add_argument("--plan", metavar="FILE", help="apply exactly this saved plan (refused if the host drifted)")
        p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
        p.add_argument("--confirm-within", type=_window, metavar="SECONDS",
                       help="revert automatically unless `numatune confirm` runs within SECONDS, even if this "
                            "process dies (default 120 when a change touches the default route or SSH interface; "
                            "0: no window)")
        scope = p.add_mutually_exclusive_group()
        scope.add_argument("--live-only", action="store_true", help="only live (runtime) changes")
        scope.add_argument("--persistent-only", action="store_true", help="only persistent and boot changes")

    p = command("revert", help="undo a transaction exactly")
    if only in (None, "revert"):
        p.add_argument("txid", nargs="?", metavar="TXID", help=TXID_HELP)
        p.add_argument("--last", action="store_true", help="the newest transaction not yet reverted")
        p.add_argument("--all", action="store_true",
                       help="every transaction not yet reverted, newest first: the host as it was before "
                            "numatune's first transaction (shown first; asks unless --yes)")
        p.add_argument("--yes", "-y", action="store_true", help="with --all: do not ask for confirmation")
        p.add_argument("--force", action="store_true", help="also restore values changed since by someone else")
        p.add_argument("--root", default="/", metavar="DIR", help=ROOT_HELP)
        p.add_argument("--format", choices=("text", "json"), default="text", help=FORMAT_HELP)

    p = command("history", help="list transactions in the journal",
                       description="List the transactions in the journal, newest first (as `dnf history` and "
                                   "the review screen's history list them; --format json keeps the journal's "
                                   "order, oldest first), or one transaction's changes and writes.")
    if only in (None, "history"):
        p.add_argument("txid", nargs="?", metavar="TXID", help="show one transaction's changes (%s)" % TXID_HELP)
        p.add_argument("--root", default="/", metavar="DIR", help=ROOT_HELP)
        p.add_argument("--format", choices=("text", "json"), default="text", help=FORMAT_HELP)
        p.add_argument("--prune", action="store_true",
                       help="remove the journals of transactions nothing can revert any more (reverted, rolled "
                            "back, set aside) older than the --keep newest; applied ones always stay")
        p.add_argument("--keep", type=_keep, metavar="N",
                       help="with --prune: how many of the newest transactions to keep whatever their state "
                            "(default 20)")

    p = command("facts", help="show what numatune sees on the host",
                       description="Show what numatune sees on the host. --format policy prints the host's "
                                   "settings as they are, as a policy that `numatune plan` on the same host "
                                   "reports as no changes (to copy a reference host to others).")
    if only in (None, "facts"):
        _common(p, formats=("text", "json", "policy"))

    p = command("check", help="report compliance (Nagios exit codes)",
                       description="Plan without writing and report compliance. Exit status: 0 compliant, "
                                   "1 warning, 2 critical, 3 could not check.")
    if only in (None, "check"):
        _common(p, formats=("text", "json", "junit", "prometheus", "nagios"))
        p.add_argument("--out", metavar="FILE",
                       help="write the report to FILE (atomically: temporary file and rename) and print one line")
        p.add_argument("-w", "--warning", metavar="RANGE",
                       help="Nagios range over the drift count: WARNING outside it (e.g. 10: more than 10); with -w "
                            "or -c the count decides the status, not the rules' severities (needs numatune[nagios])")
        p.add_argument("-c", "--critical", metavar="RANGE",
                       help="Nagios range over the drift count: CRITICAL outside it (e.g. 50, or @1:3 inside 1..3)")
        p.add_argument("-t", "--timeout", metavar="SECONDS", type=_seconds,
                       help="give up after SECONDS and report UNKNOWN (exit 3), as Nagios plugins do")

    p = command("confirm", help="keep a transaction applied with --confirm-within")
    if only in (None, "confirm"):
        p.add_argument("txid", nargs="?", metavar="TXID", help="which one (default: the only one waiting)")
        p.add_argument("--root", default="/", metavar="DIR", help=ROOT_HELP)

    p = command("boot", help="at boot: write again what apply kept in /etc/numatune/boot.conf, and redo "
                                    "its live-only settings (IRQ affinity) on this boot's facts",
                       description="Write again, one line logged per setting, the values numatune applied that "
                                   "no other file keeps (per-node HugePages ...), as apply left them in "
                                   "/etc/numatune/boot.conf; then plan again, on this boot's facts (its IRQ "
                                   "numbers, its cpufreq policies), the live-only settings of the last apply "
                                   "(irq_affinity, a governor or C-state limit nothing else keeps) from the "
                                   "policy copy in /etc/numatune/boot-replay.json, and apply them as a "
                                   "transaction that history and revert see. numatune-boot.service (or the "
                                   "SysV script numatune-boot) runs it early at boot; apply installs and "
                                   "enables the unit when it keeps such a value. Reads no policy file: a "
                                   "policy edited since the last apply is not picked up. Exit status: 0 done, "
                                   "1 a setting failed (the others are still written).")
    if only in (None, "boot"):
        p.add_argument("--root", default="/", metavar="DIR", help=ROOT_HELP)

    p = command("snapshot", help="capture this host's relevant files into a tarball for --root")
    if only in (None, "snapshot"):
        p.add_argument("--out", required=True, metavar="FILE.tar.gz", help="the archive to write")
        p.add_argument("--root", default="/", metavar="DIR", help="capture the host under DIR instead of /")

    p = command("policy", help="show policies: the merged result of a stack, with where each key came from")
    if only in (None, "policy"):
        verbs = p.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser, help="show or list")
        verbs.required = True
        v = verbs.add_parser("show", help="print the merged policy (after extends) with each key's file and line")
        v.add_argument("refs", nargs="*", metavar="FILE|NAME",
                       help="policy files or shipped names, stacked as --policy stacks them (default: as plan)")
        v.add_argument("--policy", action="append", default=[], metavar="FILE|NAME",
                       help="the same, as every other command takes it (repeatable; after the FILE|NAME arguments)")
        v.add_argument("--root", default="/", metavar="DIR", help=ROOT_HELP)
        verbs.add_parser("list", help="list the shipped policies with their descriptions")

    p = command("recommend", help="write the site policy the papers would write for this host",
                       description="Read the facts of every family and write a complete, commented policy that "
                                   "extends the right shipped one and adds what this host's shape calls for. "
                                   "Each entry says what the host has now and what its source measured; entries "
                                   "that need a site decision are commented out with the question. "
                                   "Start with: numatune recommend --out /etc/numatune/policy.toml")
    if only in (None, "recommend"):
        p.add_argument("--root", default="/", metavar="DIR", help=ROOT_HELP)
        p.add_argument("--out", metavar="FILE", help="write the policy to FILE (atomically) instead of standard output")
        p.add_argument("--format", choices=("toml", "json"), default="toml",
                       help="toml: the commented policy (default); json: its entries, sources and questions")

    p = command("review", help="review and pick changes in a terminal UI (needs numatune[tui])")
    if only in (None, "review"):
        _common(p, formats=())  # a screen: no --format or --verbose to ignore
        p.add_argument("--recommend", action="store_true",
                       help="review the plan of the policy `numatune recommend` writes for this host (stacked "
                            "after any --policy), before saving it")
    return parser


def subparser(parser, command):
    """The parser of one command (for an error that belongs to it, not to the top level)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]
