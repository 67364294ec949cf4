"""A failing stdout or stderr never ends in a traceback (#28): `> /dev/full`
gets one line on the stream that still works, a pipe whose reader is gone
(`numatune history TX | head -3`) a quiet exit as with `git log | head`, and
both the exit status of what was done (a revert done, check's Nagios status,
an apply committed). Real processes: the failure is the kernel's."""
import json
import os
import subprocess
import sys

import fakehost
import pytest

from conftest import REPO, STATE, run_cli, tree_digest, write


def _run(args, stdout, stderr=subprocess.PIPE):
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "numatune"] + [str(a) for a in args], stdout=stdout,
                            stderr=stderr, env=env, cwd=str(REPO))
    if stdout is subprocess.PIPE:
        proc.stdout.close()  # the reader is gone before the first byte: every write is EPIPE
    err = proc.stderr.read().decode() if stderr is subprocess.PIPE else ""
    return proc.wait(timeout=120), err


def _one_line(err, what):
    assert "Traceback" not in err, err
    assert err.splitlines() == ["numatune: could not write to stdout (%s); the rest of the output was dropped"
                                % what], err


@pytest.fixture
def host(tmp_path):
    root = fakehost.build(tmp_path / "root")
    policy = write(tmp_path, "policy.toml", fakehost.POLICY)
    return root, policy


def test_revert_to_a_full_device_is_done_and_says_so_on_stderr(host):
    root, policy = host
    before = tree_digest(root)
    assert run_cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    with open("/dev/full", "w") as full:
        status, err = _run(["revert", "--last", "--root", root], full)
    _one_line(err, "No space left on device")
    assert status == 0 and tree_digest(root) == before


def test_apply_whose_output_fails_after_commit_exits_with_the_applied_status(host):
    root, policy = host
    with open("/dev/full", "w") as full:
        status, err = _run(["apply", "--root", root, "--policy", policy, "--yes"], full)
    _one_line(err, "No space left on device")
    assert status == 0
    status, out, _ = run_cli("history", "--root", root)
    assert status == 0 and "applied" in out, out


@pytest.mark.parametrize("sink", ["full", "closed-pipe"])
def test_check_keeps_its_nagios_status(host, sink):
    root, policy = host
    expected, out, _ = run_cli("check", "--root", root, "--policy", policy)
    assert expected == 2 and out, out  # the fake host is not tuned yet: CRITICAL, and a report to print
    if sink == "full":
        with open("/dev/full", "w") as full:
            status, err = _run(["check", "--root", root, "--policy", policy], full)
        _one_line(err, "No space left on device")
    else:
        status, err = _run(["check", "--root", root, "--policy", policy], subprocess.PIPE)
        assert err == ""
    assert status == expected


def test_plan_into_a_closed_pipe(host):
    root, policy = host
    status, err = _run(["plan", "--root", root, "--policy", policy, "--format", "json"], subprocess.PIPE)
    assert (status, err) == (0, "")


def test_history_of_a_transaction_into_head_is_quiet(host):
    """`numatune history TX | head -3`: the reader leaves once it has its lines; like `git log | head`,
    nothing is said about it."""
    root, policy = host
    assert run_cli("apply", "--root", root, "--policy", policy, "--yes")[0] == 0
    txid = json.loads(run_cli("history", "--root", root, "--format", "json")[1])[0]["txid"]
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO), PATH=os.path.dirname(sys.executable) + ":" +
               os.environ["PATH"])
    proc = subprocess.run(["bash", "-c", '"$0" -m numatune history "$1" --root "$2" | head -c 1', sys.executable,
                           txid, str(root)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.stdout and proc.stderr == "", proc.stderr
    status, err = _run(["history", txid, "--root", root], subprocess.PIPE)
    assert (status, err) == (0, "")


def test_both_streams_full_is_silent_with_the_status(host, tmp_path):
    root, policy = host
    with open("/dev/full", "w") as full:
        status, _ = _run(["check", "--root", root, "--policy", policy], full, stderr=full)
        assert status == 2
        # An error whose one line cannot be written still exits with the error's status.
        status, _ = _run(["apply", "--root", root, "--policy", tmp_path / "missing.toml", "--yes"], full, full)
        assert status == 2
    assert not (root / STATE / "journal").exists() or not any((root / STATE / "journal").iterdir())


def test_help_to_a_full_device(tmp_path):
    with open("/dev/full", "w") as full:
        status, err = _run(["--help"], full)
    _one_line(err, "No space left on device")
    assert status == 0
