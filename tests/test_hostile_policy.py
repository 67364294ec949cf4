"""Values that passed validation but must not (#14 item 5); the refusals
with file:line live in tests/cases/bad_policies (cpuset_*, nul_in_sysctl,
ansi_in_why, pattern_trailing_newline, oracle_path_dotdot, multipath_quote).
Here: what the fixes write and print."""
import re

import pytest

import fakehost
from conftest import write
from numatune.facts.cpulist import CpulistError, parse_cpulist, parse_cpumask
from numatune.families.storage.multipath_conf import glob_regex
from numatune.policy.schema import Scalar, SchemaError


@pytest.mark.parametrize("glob,hits,misses", [
    ("V*", ["VV", "VRAID"], ["OPEN-V", "", "XV"]),
    ("HSV2?0", ["HSV200", "HSV210"], ["HSV2000", "HSV20"]),
    ("HP.x", ["HP.x"], ["HPyx"]),
    ("[!A]b*", ["Xbc"], ["Abc"]),
])
def test_a_multipath_glob_becomes_a_regex_matching_only_what_the_glob_does(glob, hits, misses):
    # multipath matches vendor/product regexes unanchored (regexec), as re.search does.
    regex = glob_regex(glob)
    assert all(re.search(regex, name) for name in hits), regex
    assert not any(re.search(regex, name) for name in misses), regex


def test_a_plain_multipath_name_is_written_as_before():
    assert glob_regex("3PARdata") == "3PARdata" and glob_regex("OPEN-V") == "OPEN-V"


@pytest.mark.parametrize("text", ["9-1", "0-3:1/0", "0-3:5/4", "0-200000000", "a-b", "1-", "0-3,,x", "-1"])
def test_cpulists_that_are_not_are_refused_without_allocating(text):
    with pytest.raises(CpulistError):
        parse_cpulist(text)


def test_cpulists_the_kernel_writes_still_parse():
    assert parse_cpulist("0-3,8,10-11\n\x00") == [0, 1, 2, 3, 8, 10, 11]
    assert parse_cpulist("0-15:2/4") == [0, 1, 4, 5, 8, 9, 12, 13]
    assert parse_cpumask("00000000,0000ff0f") == [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15]
    with pytest.raises(CpulistError):
        parse_cpumask("f" * 100000)


def test_patterns_match_the_whole_value():
    spec = Scalar(str, pattern=r"^[a-z]+=[a-z]+$")
    spec.validate("foo=bar", "k")
    for bad in ("foo=bar\n", "foo=bar\x00", "x\x1b[2J"):
        with pytest.raises(SchemaError):
            spec.validate(bad, "k")


def test_a_pattern_is_compiled_when_a_value_is_first_checked(monkeypatch):
    """Every family declares its schema at import (25 patterns); a policy's few keys use few of them (#38)."""
    import re
    compiled = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *a: compiled.append(a[0]) or real(*a))
    from numatune.policy.schema import Table
    spec, table = Scalar(str, pattern=r"^[a-z]+$"), Table(extra=Scalar(str), extra_key=r"^[A-Z]+$")
    assert compiled == []
    spec.validate("abc", "k")
    table.validate({"AB": "x"}, "t")
    assert compiled == [r"^[a-z]+$", r"^[A-Z]+$"]
    spec.validate("abd", "k")
    assert len(compiled) == 2 and spec.pattern.pattern == r"^[a-z]+$"
    with pytest.raises(SchemaError):
        table.validate({"ab": "x"}, "t")


def test_host_strings_with_escape_sequences_are_printed_escaped(cli, tmp_path):
    root = fakehost.build(tmp_path / "root")
    write(root, "proc/sys/vm/swappiness", "\x1b[2J\x1b[1;1H60\n")
    policy = write(tmp_path, "p.toml", "[sysctl]\n\"vm.swappiness\" = 10\n")
    status, out, err = cli("plan", "--root", root, "--policy", policy)
    assert status == 0, err
    assert "\x1b" not in out and "\\x1b[2J" in out
