"""Help and errors: every subcommand, option and argument says what it is;
a misspelt command gets "did you mean"; a bad flag points to its own
subcommand's help; review takes no option it would ignore."""
import argparse

import pytest

from numatune.cli import build_parser


def _subparsers():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    return [(name, helps.get(name), p) for name, p in sub.choices.items()]


@pytest.mark.parametrize("name, helped, sub", _subparsers(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_subcommand_option_and_argument_has_help(name, helped, sub):
    assert helped
    for action in sub._actions:
        assert action.help and action.help.strip(), "%s %s has no help" % (name, action.option_strings or action.dest)


def test_a_misspelt_command_gets_did_you_mean(cli):
    status, out, err = cli("pln")
    assert status == 2 and "unknown command 'pln' (did you mean 'plan'?)" in err
    assert len(err.strip().splitlines()) == 1


def test_a_bad_flag_points_to_its_subcommands_help(cli):
    status, _, err = cli("plan", "--frmat", "json")
    assert status == 2 and "see `numatune plan --help`" in err and "--frmat" in err
    status, _, err = cli("check", "--nope")
    assert status == 3 and "see `numatune check --help`" in err


@pytest.mark.parametrize("flag", [["--format", "json"], ["--verbose"]])
def test_review_rejects_options_it_would_ignore(cli, flag):
    status, _, err = cli("review", *flag)
    assert status == 2 and "unrecognized arguments" in err and "numatune review --help" in err
