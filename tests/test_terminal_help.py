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


def test_list_policies_shows_each_description(cli):
    from numatune.policy.stack import shipped_names
    status, out, _ = cli("plan", "--list-policies")
    lines = [line for line in out.splitlines() if not line.startswith(" ")]  # not a description's next line
    assert status == 0 and [line.split()[0] for line in lines] == shipped_names()
    assert all(len(line.split(None, 1)) == 2 for line in lines)  # every one has a description
    assert "NUMA-aware kernel and memory defaults" in out


def test_policy_show_is_the_merged_policy_with_where_each_key_came_from(cli, tmp_path):
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    from conftest import write
    from numatune.policy.stack import load
    site = write(tmp_path, "site.toml", '[policy]\nname = "site"\nextends = ["oracle-numa"]\n'
                                        '[sysctl]\n"vm.swappiness" = 10\n"vm.zone_reclaim_mode" = 1\n')
    status, out, _ = cli("policy", "show", site)
    assert status == 0
    assert tomllib.loads(out) == load([str(site)]).data  # the text is the merged policy, as TOML
    # Each key's file:line is the comment above it (the file by its base name; the header names it in full).
    lines = out.splitlines()
    where = {line.split(" = ")[0]: lines[i - 1][2:] for i, line in enumerate(lines)
             if " = " in line and not line.startswith(("#", " "))}
    assert "#   %s" % site in lines
    assert where["\"vm.swappiness\""] == "site.toml:5"
    assert where["\"vm.zone_reclaim_mode\""] == "site.toml:6"          # the site overrides the shipped value
    assert where["transparent_hugepage"].endswith("oracle-numa.toml:15") or "oracle-numa.toml" in \
        where["transparent_hugepage"]


def test_policy_show_takes_policy_as_every_other_command_does(cli, tmp_path):
    """`policy show --policy F` is `policy show F` (every other command takes --policy); both stack in the
    order given, the positional files first."""
    from conftest import write
    site = write(tmp_path, "site.toml", '[policy]\nname = "site"\nextends = ["oracle-numa"]\n'
                                        '[sysctl]\n"vm.swappiness" = 10\n')
    more = write(tmp_path, "more.toml", '[policy]\nname = "more"\n[sysctl]\n"vm.swappiness" = 20\n')
    positional = cli("policy", "show", site)
    assert positional[0] == 0
    assert cli("policy", "show", "--policy", site) == positional
    status, out, _ = cli("policy", "show", site, "--policy", more)
    assert status == 0 and '"vm.swappiness" = 20' in out
    assert cli("policy", "show", "--policy", site, "--policy", more)[1] == out


def test_completion_offers_transaction_ids_from_the_roots_journal(tmp_path):
    import shutil
    import subprocess
    from conftest import REPO, write
    if not shutil.which("bash"):
        pytest.skip("no bash")
    for txid in ("20261101T100000-000001-1", "20261102T100000-000002-1"):
        write(tmp_path, "var/lib/numatune/journal/%s.jsonl" % txid, "{}\n")
    for cmd in ("revert", "history", "confirm"):
        words = ["numatune", cmd, "--root", str(tmp_path), "2026110"]
        script = ("source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _numatune; printf '%%s\\n' \"${COMPREPLY[@]}\""
                  % (REPO / "packaging/completion/numatune.bash", " ".join("'%s'" % w for w in words),
                     len(words) - 1))
        got = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.split()
        assert got == ["20261102T100000-000002-1", "20261101T100000-000001-1"], (cmd, got)


def test_man_page_has_the_sections_a_dba_looks_for():
    from conftest import REPO
    page = (REPO / "packaging/man/numatune.8").read_text()
    for section in ("EXAMPLES", "TUI KEYS", "EXIT STATUS", "ENVIRONMENT", "FILES"):
        assert ".SH %s" % section in page
    assert "NO_COLOR" in page and "lock" in page and "HugePages" in page
    assert "numatune plan \\-\\-root host.tar.gz" in page
