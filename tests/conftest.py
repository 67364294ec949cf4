"""Shared fixtures: real captures unpacked into temporary roots, and a way to
run the CLI in-process and as a real process."""
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check what is computed, not how fast: speed is bench/'s. Hypothesis's default
# 200 ms deadline and too-slow check fail them on a loaded machine (seen at load 10-13).
settings.register_profile("numatune", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("numatune")

from numatune.root import Root

REPO = Path(__file__).resolve().parents[1]
# Real captures live in the repository (tests/data, each source's README and license beside it): a fresh
# clone tests alone.
REALDATA = REPO / "tests" / "data"
HWLOC = sorted((REALDATA / "hwloc").glob("*.tar.bz2"))
LSCPU = sorted((REALDATA / "lscpu").glob("*.tar.gz"))
CAPTURES = {p.name.split(".tar")[0]: p for p in HWLOC + LSCPU}
STATE = "var/lib/numatune"

_unpacked = {}
REAL_STATE = Path("/var/lib/numatune")


@pytest.fixture(scope="session", autouse=True)
def real_state_left_as_found():
    """Tests that apply to the real / (loop devices, cpusets, sysctls) journal
    into the real /var/lib/numatune: remove what the session added there."""
    existed = REAL_STATE.exists()
    before = set(REAL_STATE.rglob("*")) if existed else set()
    yield
    if not REAL_STATE.exists():
        return
    if not existed:
        shutil.rmtree(REAL_STATE, ignore_errors=True)
        return
    for path in sorted(set(REAL_STATE.rglob("*")) - before, reverse=True):
        try:
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        except OSError:
            pass


def _unpack(name, base):
    """Unpack a capture once per session; return the dir holding sys/ and proc/."""
    # A cached copy can be gone: the fault campaign's module unpacks into a /dev/shm directory it removes.
    if name not in _unpacked or not _unpacked[name].is_dir():
        dest = base / name
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(CAPTURES[name]) as tar:
            tar.extractall(dest, filter="fully_trusted") if hasattr(tarfile, "data_filter") else tar.extractall(dest)
        top = dest
        for sub in [dest] + sorted(p for p in dest.iterdir() if p.is_dir()):
            if (sub / "sys").is_dir():
                top = sub
                break
        _unpacked[name] = top
    return _unpacked[name]


@pytest.fixture(scope="session")
def capture_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("captures")


@pytest.fixture
def capture(capture_cache, tmp_path):
    """capture(name) -> a private copy of that capture to plan and apply on."""
    def make(name):
        src = _unpack(name, capture_cache)
        dest = tmp_path / ("root-" + name)
        shutil.copytree(src, dest, symlinks=True)
        return dest
    return make


def tree_digest(root, ignore=(STATE,)):
    """Path -> (kind, content hash, mode, owner) of every entry, numatune's
    own state excluded: 'diff -r' plus metadata."""
    out = {}
    root = Path(root)
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if any(rel_dir == i or rel_dir.startswith(i + "/") for i in ignore):
            continue
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if any(rel == i or rel.startswith(i + "/") or i.startswith(rel + "/") for i in ignore):
                continue
            st = path.lstat()
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", st.st_mode, st.st_uid, st.st_gid)
            elif not stat.S_ISREG(st.st_mode):
                # A FIFO or device (planted by the fault campaign): its metadata, never read (it would block).
                out[rel] = ("special", st.st_mode, st.st_uid, st.st_gid, st.st_rdev)
            else:
                out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mode, st.st_uid,
                            st.st_gid)
    return out


def run_cli(*args, stdin=None, env=None):
    """numatune as a real process: (exit status, stdout, stderr)."""
    full_env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO))
    full_env.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "numatune"] + [str(a) for a in args], input=stdin,
                          capture_output=True, text=True, env=full_env, cwd=str(REPO))
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def cli(capsys):
    """numatune in-process (fast): (exit status, stdout, stderr)."""
    from numatune.cli import main

    def call(*args):
        try:
            status = main([str(a) for a in args])
        except SystemExit as e:
            status = e.code
        out, err = capsys.readouterr()
        return status, out, err
    return call


def write(root, path, text, mode=None):
    p = Path(root) / path.lstrip("/")
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    if mode is not None:
        p.chmod(mode)
    return p


class LiveCopy(Root):
    """A copied tree that says it is the live root (host tools, netlink and
    SQL paths run only there); every path still maps into the copy."""

    def __init__(self, path):
        super().__init__(path)
        self.is_live = True

    def join(self, path, follow=True):
        return self.path + path

    def rel(self, real_path):
        return real_path[len(self.path):] or "/"


# /usr/bin/numatune as the RPM installs it (pip's script, its interpreter line set by the spec's %install).
RPM_SCRIPT = """#!/usr/bin/python3 -s
# -*- coding: utf-8 -*-
import re
import sys
from numatune.cli import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


def install_numatune(root, path="/usr/bin/numatune", python="/usr/bin/python3 -s"):
    """numatune installed as a system command in ``root``, with ``python`` on its #! line."""
    return write(root, path, RPM_SCRIPT.replace("/usr/bin/python3 -s", python, 1), mode=0o755)
