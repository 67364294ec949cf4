"""tuned-main.conf read as tuned reads it: the pure parser and the answer
to "does tuned write sysctl.d's values again after its profile's"."""
from pathlib import Path

import pytest

from numatune.families.tuned import mainconf

REAL = Path("/etc/tuned/tuned-main.conf")


@pytest.mark.skipif(not REAL.exists(), reason="tuned is not installed")
def test_the_real_file_turns_it_on():
    options = mainconf.parse(REAL.read_text())
    assert options["reapply_sysctl"][0] == "1"
    assert mainconf.reapplies({"options": options}, "vm.swappiness")[0] is True


def test_last_line_wins_and_inline_comments_go():
    options = mainconf.parse("reapply_sysctl = 1\n# reapply_sysctl = 0\nreapply_sysctl = 0  # off\n")
    assert options["reapply_sysctl"] == ("0", 3)


@pytest.mark.parametrize("value, answer", [("1", True), ("yes", True), ("True", True), ("0", False),
                                           ("off", False), ("maybe", None)])
def test_booleans_as_configparser_reads_them(value, answer):
    assert mainconf.reapplies({"options": mainconf.parse("reapply_sysctl = %s\n" % value)}, "k.x")[0] is answer


def test_absent_file_or_key_is_tuneds_default():
    assert mainconf.reapplies({"options": None}, "vm.x") == (
        True, "reapply_sysctl is on by default since tuned 2.7 (no /etc/tuned/tuned-main.conf)")
    assert mainconf.reapplies({"options": {}, "version": [2, 20]}, "vm.x")[0] is True
    assert mainconf.reapplies({"options": {}, "version": [2, 6]}, "vm.x")[0] is False


def test_exclude_patterns_keep_the_profiles_value():
    options = mainconf.parse("reapply_sysctl = 1\nreapply_sysctl_exclude = net.ipv4.*; kernel.sem\n")
    assert mainconf.reapplies({"options": options}, "net.ipv4.ip_forward")[0] is False
    assert mainconf.reapplies({"options": options}, "kernel.sem")[0] is False
    assert mainconf.reapplies({"options": options}, "vm.swappiness")[0] is True


def test_version_file():
    assert mainconf.parse_version("TUNED_VERSION_MAJOR = 2\nTUNED_VERSION_MINOR = 20\n") == (2, 20)
    assert mainconf.parse_version("nothing") is None
