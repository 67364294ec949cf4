"""`check -w/-c RANGE -t SECONDS` (issue 27): the Nagios plugin guidelines' thresholds over the drift count,
read by nagiosplugin's Range, and a timeout that is UNKNOWN. The case has 3 drifting rules (all critical)."""
import re
import time

import pytest

from conftest import REPO

CASE = REPO / "tests" / "cases" / "sysctl" / "conf-symlink"
PERF = re.compile(r"drift=(\d+);([^;]*);([^;]*);0$")


def _check(cli, *flags):
    return cli("check", "--root", CASE / "root", "--policy", CASE / "policy.toml", "--format", "nagios", *flags)


@pytest.mark.parametrize("flags, status, word", [
    ((), 2, "CRITICAL"),                          # no threshold: the worst rule's severity, as before
    (("-w", "5", "-c", "10"), 0, "OK"),           # 3 drifting rules: inside 0..5 and 0..10
    (("-w", "2", "-c", "10"), 1, "WARNING"),      # 3 > 2
    (("-w", "1", "-c", "2"), 2, "CRITICAL"),      # 3 > 2
    (("--critical", "@3:5",), 2, "CRITICAL"),     # @: alert inside 3..5
    (("--warning", "4:"), 1, "WARNING"),          # 4:: alert below 4
    (("-c", "~:3"), 0, "OK"),                     # ~: no lower bound
])
def test_ranges_over_the_drift_count_decide_the_status(cli, flags, status, word):
    got, out, err = _check(cli, *flags)
    assert got == status and out.startswith("NUMATUNE %s - " % word), out + err
    drift, warn, crit = PERF.search(out.strip()).groups()
    assert drift == "3"
    given = dict(zip(flags[::2], flags[1::2]))
    assert warn == given.get("-w", given.get("--warning", "")) and crit == given.get("-c", given.get("--critical", ""))
    if flags:  # the severity counts no longer carry thresholds that would contradict the status
        assert "critical=3;;;0" in out


def test_the_status_follows_in_every_format(cli):
    import json
    got, out, err = cli("check", "--root", CASE / "root", "--policy", CASE / "policy.toml", "--format", "json",
                        "-w", "5", "-c", "10")
    assert got == 0 and json.loads(out)["status_text"] == "OK"


@pytest.mark.parametrize("flag, value", [("-w", "x"), ("-c", "10:5"), ("-w", "1:2:3")])
def test_a_bad_range_is_unknown_with_one_line(cli, flag, value):
    got, out, err = _check(cli, flag, value)
    assert got == 3 and out.startswith("NUMATUNE UNKNOWN - ") and "not a Nagios range" in out and out.count("\n") == 1


def test_without_nagiosplugin_a_threshold_names_the_extra(cli, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "nagiosplugin", None)  # import fails as if not installed
    got, out, err = _check(cli, "-w", "1")
    assert got == 3 and "numatune[nagios]" in out and "Traceback" not in err
    got, out, err = _check(cli)
    assert got == 2  # no threshold: nagiosplugin is not needed


def test_timeout_is_unknown(cli, monkeypatch):
    from numatune import engine
    real = engine.make_plan

    def slow(*args, **kwargs):
        time.sleep(5)
        return real(*args, **kwargs)
    monkeypatch.setattr(engine, "make_plan", slow)
    start = time.monotonic()
    got, out, err = _check(cli, "-t", "1")
    assert got == 3 and out.startswith("NUMATUNE UNKNOWN - timed out after 1 s"), out + err
    assert time.monotonic() - start < 4
    monkeypatch.setattr(engine, "make_plan", real)
    got, out, err = _check(cli, "-t", "30")
    assert got == 2  # in time: the report as without -t


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_bad_timeout_is_unknown(cli, value):
    got, out, err = _check(cli, "-t", value)
    assert got == 3 and "whole number of seconds" in err
