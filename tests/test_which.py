"""numatune's which finds what shutil.which finds, without loading shutil on a check."""
import os
import shutil
import subprocess
import sys

import pytest

from numatune.rootfs.which import which

NAMES = ["sh", "ls", "python3", "no-such-command-here", "tool", "dir", "plain", "/bin/sh", "./tool", "sub/tool"]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    for d in ("a", "b", "a/dir"):
        (tmp_path / d).mkdir(exist_ok=True)
    for path, mode in (("a/tool", 0o755), ("b/tool", 0o755), ("a/plain", 0o644), ("b/plain", 0o755)):
        (tmp_path / path).write_text("#!/bin/sh\n")
        os.chmod(tmp_path / path, mode)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/tool").write_text("")
    os.chmod(tmp_path / "sub/tool", 0o755)
    (tmp_path / "tool").write_text("")
    os.chmod(tmp_path / "tool", 0o755)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("path", [None, "", ":", "{a}:{b}", "{b}:{a}", "{a}:{a}:/usr/bin:/bin", "{a}/dir:{b}",
                                  "/nonexistent:{b}", "/usr/bin:/bin"])
@pytest.mark.parametrize("name", NAMES)
def test_which_is_shutils(tree, monkeypatch, path, name):
    if path is None:
        monkeypatch.delenv("PATH", raising=False)
    else:
        monkeypatch.setenv("PATH", path.format(a=tree / "a", b=tree / "b"))
    assert which(name) == shutil.which(name)


def test_a_check_does_not_load_shutil(tmp_path):
    policy = tmp_path / "p.toml"
    policy.write_text('[sysctl]\n"vm.swappiness" = 60\n')
    code = ("import sys; from numatune import cli; sys.argv = ['numatune', 'check', '--policy', %r]\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('shutil' in sys.modules and 'LOADED' or 'clean')" % str(policy))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stderr.endswith("clean"), out.stderr[-300:]
