"""Every command a hint names repeats the run's --root and --policy, shell-quoted:
pasted, it aims where the run did, never at the live / (issue #23)."""
import argparse
import shlex

import pytest

import fakehost
from conftest import tree_digest, write
from numatune.apply.lock import RunLock
from numatune.cli import build_parser
from numatune.report import hints
from numatune.root import Root


@pytest.fixture
def host(tmp_path):
    # A space in both paths: the hint must quote them to be pasteable.
    root_dir = fakehost.build(tmp_path / "the root")
    policy_path = write(tmp_path, "my policy.toml", fakehost.POLICY)
    return root_dir, policy_path


COMMANDS = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices


def _commands(text):
    """Each `numatune ...` command in ``text`` (backticked, or the rest of a line), split as a shell would."""
    out = []
    for line in text.splitlines():
        while "numatune " in line:
            rest = line[line.index("numatune ") + len("numatune "):]
            if "`" in rest:
                cmd, line = rest.split("`", 1)
            else:
                cmd, line = rest, ""
            words = shlex.split(cmd.rstrip(").,;"))
            if words and words[0] in COMMANDS:  # "another numatune run (pid 7)" is prose
                out.append(words)
    return out


def _flag(words, name):
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == name]


def test_the_flag_tables_match_the_parser():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    root = {n for n, p in sub.choices.items() if "--root" in p._option_string_actions} - {"snapshot"}
    policy = {n for n, p in sub.choices.items() if "--policy" in p._option_string_actions}
    assert root == hints.TAKES_ROOT and policy == hints.TAKES_POLICY


def test_partial_revert_hint_carries_the_root(host, cli):
    root_dir, policy_path = host
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 0, err
    (revert_cmd,) = [c for c in _commands(out) if c[0] == "revert"]
    assert _flag(revert_cmd, "--root") == [str(root_dir)]
    (root_dir / "proc/sys/vm/swappiness").write_text("33\n")
    status, out, err = cli("revert", "--last", "--root", root_dir)
    assert status == 1 and "LEFT ALONE" in out
    (force,) = [c for c in _commands(out) if "--force" in c]
    assert force[:1] == ["revert"] and _flag(force, "--root") == [str(root_dir)]
    # Pasted as printed, it restores the copy (not /).
    status, out, err = cli(*force)
    assert status == 0, err
    assert (root_dir / "proc/sys/vm/swappiness").read_text() == "60\n"


def test_stale_plan_refusal_names_a_plan_command_with_root_and_policy(host, cli, tmp_path):
    root_dir, policy_path = host
    saved = tmp_path / "plan.json"
    assert cli("plan", "--root", root_dir, "--policy", policy_path, "--out", saved)[0] == 0
    (root_dir / "proc/sys/vm/swappiness").write_text("59\n")
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path, "--plan", saved)
    assert status == 2 and "drifted" in err
    (plan_cmd,) = _commands(err)
    assert plan_cmd[0] == "plan"
    assert _flag(plan_cmd, "--root") == [str(root_dir)] and _flag(plan_cmd, "--policy") == [str(policy_path)]


def test_interrupted_transaction_hint_at_the_lock_carries_the_root(host, cli):
    root_dir, policy_path = host
    assert cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)[0] == 0
    # A transaction without its commit: what a killed run leaves.
    journal = next((root_dir / "var/lib/numatune/journal").glob("*.jsonl"))
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(line for line in lines if '"commit"' not in line) + "\n")
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 2 and "interrupted" in err
    (revert_cmd,) = _commands(err)
    assert revert_cmd[0] == "revert" and _flag(revert_cmd, "--root") == [str(root_dir)]
    assert "--policy" not in revert_cmd  # revert takes none


def test_confirm_window_hint_carries_the_root(host, cli):
    root_dir, policy_path = host
    status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path, "--confirm-within", "1")
    confirm_cmds = [c for c in _commands(out) if c[0] == "confirm"]
    assert confirm_cmds and all(_flag(c, "--root") == [str(root_dir)] for c in confirm_cmds), out


def test_lock_refusal_names_no_command_that_could_aim_at_slash(host, cli):
    root_dir, policy_path = host
    with RunLock(Root(str(root_dir))):
        status, out, err = cli("apply", "--yes", "--root", root_dir, "--policy", policy_path)
    assert status == 2 and "holds" in err
    assert all(_flag(c, "--root") == [str(root_dir)] for c in _commands(err))


def test_rollback_failure_hint_names_history_and_revert_with_the_root():
    text = ("x (the host is only partly restored: see `numatune history T1`, fix the cause, then "
            "`numatune revert T1`)")
    ctx = hints.context("/tmp/a b", ["p.toml"])
    cmds = _commands(hints.carry(text, ctx))
    assert [c[0] for c in cmds] == ["history", "revert"]
    assert all(_flag(c, "--root") == ["/tmp/a b"] and "--policy" not in c for c in cmds)
    # A plan command repeats every --policy, in order; the live root adds nothing.
    plan = _commands(hints.carry("`numatune plan --out FILE`", hints.context("/", ["a", "b c"])))[0]
    assert plan == ["plan", "--out", "FILE", "--policy", "a", "--policy", "b c"]
    assert hints.carry("`numatune revert T1`", hints.context("/")) == "`numatune revert T1`"


def test_every_error_the_cli_prints_goes_through_carry(host, monkeypatch, capsys):
    """Any error whose hint names a command, wherever it is raised."""
    from numatune import commands
    from numatune.cli import main
    from numatune.errors import UsageError
    root_dir, policy_path = host

    def boom(args):
        raise UsageError("no", "see `numatune history` or `numatune check`")
    monkeypatch.setattr(commands, "cmd_facts", boom)
    assert main(["facts", "--root", str(root_dir), "--policy", str(policy_path)]) == 2
    history, check = _commands(capsys.readouterr().err)
    assert _flag(history, "--root") == [str(root_dir)] and "--policy" not in history
    assert _flag(check, "--policy") == [str(policy_path)]


def test_snapshot_hint_quotes_the_archive(tmp_path, cli):
    out_path = tmp_path / "a b.tar.gz"
    status, out, err = cli("snapshot", "--out", out_path, "--root", fakehost.build(tmp_path / "r"))
    assert status == 0, err
    plan_cmd = _commands(out)[0]
    assert plan_cmd[0] == "plan" and _flag(plan_cmd, "--root") == [str(out_path)]


def test_a_parser_built_for_one_command_is_the_full_one_for_it():
    """build_parser(argv) builds only the named command's parser (#29, #38): that
    command's help and parse are the full parser's, and the list of commands
    it checks against is the parser's own."""
    from numatune import cli
    assert tuple(COMMANDS) == cli.COMMANDS
    full = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name in cli.COMMANDS:
        argv = [name, "--root", "/tmp"] if name not in ("policy", "snapshot", "confirm") else [name]
        parser = build_parser(argv)
        one = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
        assert one[name].format_help() == full[name].format_help()
        assert list(one) == [name]     # the others: no parser at all (#38)
    # A top-level -h before the command lists every command, each with its help line.
    listed = build_parser(["-h", "check"])
    assert listed.format_help() == build_parser().format_help()
    one = next(a for a in listed._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert [n for n in one if n != "check" and one[n]._actions[1:]] == []
    assert build_parser(["--root", "/x", "check"]).format_help() == build_parser().format_help()
