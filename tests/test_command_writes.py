"""Host tools (grubby) run only on the real root; the files they may touch are
journaled first and restored byte for byte. A real process stands in for
grubby here (this VM has none), editing files in a temporary directory."""
import os
import stat
import sys

import pytest

from numatune.apply import command as commands
from numatune.model import Write
from numatune.root import Root


@pytest.fixture
def fake_grubby(tmp_path):
    script = tmp_path / "grubby"
    script.write_text("#!%s\nimport sys\nfor path in sys.argv[2:]:\n"
                      "    text = open(path).read().replace('numa=off', '')\n"
                      "    open(path, 'w').write(text)\n" % sys.executable)
    script.chmod(0o755)
    return script


def test_command_write_journals_and_restores_files(tmp_path, fake_grubby):
    entry = tmp_path / "entry.conf"
    entry.write_text("options root=/dev/sda1 numa=off quiet\n")
    entry.chmod(0o600)
    other = tmp_path / "untouched.conf"
    other.write_text("x\n")
    root = Root("/")
    write = Write(kind="command", path="grubby", argv=[str(fake_grubby), "--remove-args", str(entry)],
                  files=[str(entry), str(other)])
    op = commands.capture(root, write)
    commands.perform(root, op)
    assert entry.read_text() == "options root=/dev/sda1  quiet\n"
    assert commands.current_matches(root, op, "after")
    commands.restore(root, op)
    assert entry.read_text() == "options root=/dev/sda1 numa=off quiet\n"
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o600
    assert commands.current_matches(root, op, "before")


def test_failing_tool_raises_with_its_message(tmp_path):
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho 'grubby: bad kernel path' >&2\nexit 3\n")
    tool.chmod(0o755)
    op = commands.capture(Root("/"), Write(kind="command", path="grubby", argv=[str(tool)], files=[]))
    with pytest.raises(OSError, match="bad kernel path"):
        commands.perform(Root("/"), op)


def test_host_tools_never_run_under_a_root(tmp_path):
    with pytest.raises(RuntimeError):
        commands.capture(Root(str(tmp_path)), Write(kind="command", path="grubby", argv=["true"]))
