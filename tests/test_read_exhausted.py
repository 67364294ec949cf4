"""A read that fails for want of descriptors (EMFILE) says nothing of the file:
numatune stops with one line and a hint, never plans or recommends as if the
file were missing (a recommend with 40 free descriptors used to leave out the
Oracle instances' parameter files, and wrote another policy, exit 0)."""
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CASE = REPO / "tests" / "cases" / "oracle" / "version-aware" / "root"

# Runs numatune code with every descriptor but ``free`` taken (RLIMIT_NOFILE lowered first).
STARVED = textwrap.dedent("""
    import os, resource, sys
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
    held = []
    try:
        while True:
            held.append(os.open("/dev/null", os.O_RDONLY))
    except OSError:
        pass
    for _ in range(int(sys.argv[1])):
        os.close(held.pop())
""")


def _run(tmp_path, code, free, *args, imports=""):
    """``code`` run with ``free`` descriptors left; ``imports`` loaded before they are taken."""
    script = tmp_path / "starved.py"
    script.write_text(textwrap.dedent(imports) + STARVED + textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script), str(free)] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=str(REPO), env=dict(os.environ, PYTHONPATH=str(REPO)))


READS = ["read_text('/etc/oratab')", "read_bytes('/etc/oratab')", "read_value('/etc/oratab')",
         "read_texts('/etc', ['oratab'])", "read_value_alone('/etc/oratab')", "exists('/etc/oratab')",
         "isdir('/etc')", "islink('/etc/oratab')", "listdir('/etc')", "readlink('/etc/oratab')"]


@pytest.mark.parametrize("call", READS)
def test_each_read_says_it_ran_out_of_descriptors(call, tmp_path):
    code = """
        root = Root(sys.argv[2])
        try:
            got = root.%s
        except ExhaustedError as e:
            print("refused:", e)
        else:
            print("read:", got)
    """ % call
    proc = _run(tmp_path, code, 0, CASE, imports="from numatune.errors import ExhaustedError\n"
                                                  "from numatune.root import Root\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("refused: cannot read /etc"), proc.stdout
    assert "Too many open files" in proc.stdout and "ulimit -n" in proc.stdout


def test_recommend_short_of_descriptors_stops_and_writes_nothing(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(CASE, root, symlinks=True)
    out = tmp_path / "site.toml"
    code = """
        from numatune import cli
        sys.exit(cli.main(["recommend", "--root", sys.argv[2], "--out", sys.argv[3]]))
    """
    for free in (40, 48):
        proc = _run(tmp_path, code, free, root, out)
        assert proc.returncode == 2, (free, proc.stdout, proc.stderr)
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("numatune: cannot read ") and "ulimit -n" in lines[0], lines
        assert not out.exists()
    # With enough of them, the same run writes the policy the instances call for.
    proc = _run(tmp_path, code, 200, root, out)
    assert proc.returncode == 0, proc.stderr
    assert 'extends = ["oracle-hugepages"]' in out.read_text()



def test_a_module_that_cannot_load_for_want_of_descriptors_is_one_line(monkeypatch, capsys):
    """Out of descriptors outside a read of the host's (numatune's own modules load lazily): one line."""
    import errno

    from numatune import cli

    def starved(argv):
        raise OSError(errno.EMFILE, "Too many open files", "/usr/lib/python3.9/site-packages/numatune/commands.py")
    monkeypatch.setattr(cli, "_main", starved)
    assert cli.main(["plan"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("numatune: cannot read /usr/lib/python3.9/site-packages/numatune/commands.py: "
                          "Too many open files (raise the open-files limit (ulimit -n")


def test_another_os_error_outside_a_read_is_still_a_bug(monkeypatch):
    from numatune import cli

    def broken(argv):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(cli, "_main", broken)
    with pytest.raises(OSError):
        cli.main(["plan"])
