"""The one "replace or append ``key = value``" editor behind the sysctl.d
editor and the boot file's: each caller says what key a line sets, the
helper does the rest the same way for both."""
import pytest

from numatune.facts import bootfile, keyvalue
from numatune.families.sysctl import knob


def _first_word(line):
    return line.split("=")[0].strip() if "=" in line and not line.lstrip().startswith("#") else None


def test_replaces_the_first_line_in_place_and_drops_later_ones():
    text = "# keep\na = 1\nb = 2\na = 3\n"
    assert keyvalue.set_key(text, "a", "9", _first_word) == "# keep\na = 9\nb = 2\n"


def test_appends_a_new_key_after_a_last_line_without_newline():
    assert keyvalue.set_key("b = 2", "a", "1", _first_word) == "b = 2\na = 1\n"


def test_a_new_file_starts_with_the_header():
    assert keyvalue.set_key(None, "a", "1", _first_word, "# header\n") == "# header\na = 1\n"


def test_comments_naming_the_key_are_left_alone():
    assert keyvalue.set_key("# a = 0\n", "a", "1", _first_word) == "# a = 0\na = 1\n"


@pytest.mark.parametrize("editor, key, header", [
    (knob.sysctl_set, "vm.swappiness", knob.HEADER),
    (bootfile.set_line, "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages", bootfile.HEADER),
])
def test_both_editors_share_the_behaviour(editor, key, header):
    text = editor(None, key, "1")
    assert text == header + "%s = 1\n" % key
    text = editor(text + "%s = 5\n" % key, key, "2")      # a second line for the key goes
    assert text == header + "%s = 2\n" % key
    assert editor("x = 1", key, "3") == "x = 1\n%s = 3\n" % key


def test_each_editor_keeps_its_own_idea_of_a_key():
    # sysctl.d: "-" prefix (ignore errors) and "/" separators name the same key; ";" starts a comment.
    assert knob.sysctl_set("-vm/swappiness=10\n; vm.swappiness = 1\n", "vm.swappiness", "20") == \
        "vm.swappiness = 20\n; vm.swappiness = 1\n"
    # The boot file: a path is the key, and "=" alone (no spaces) is not its separator.
    path = "/sys/a"
    assert bootfile.set_line("/sys/a=1\n", path, "2") == "/sys/a=1\n/sys/a = 2\n"
