"""A boot file that exists but cannot be read (a non-root run: RHEL keeps
grub.cfg 0600) is a finding that names it, never planned as if absent."""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

import fakehost
from conftest import REPO, write

NOBODY = 65534
# The test's own interpreter may live under /root (pyenv): nobody runs the system one.
SYSTEM_PYTHON = "/usr/bin/python3"


def _nobody_can_run(env, cwd):
    if not os.path.exists(SYSTEM_PYTHON):
        return False
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import numatune.cli"], capture_output=True, env=env, cwd=cwd,
                           user=NOBODY)
    return probe.returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a process as nobody")
def test_an_unreadable_default_grub_is_a_finding_for_a_non_root_run():
    base = tempfile.mkdtemp(prefix="numatune-nonroot-")
    try:
        os.chmod(base, 0o755)
        root = fakehost.build(os.path.join(base, "root"))
        write(root, "/etc/default/grub", 'GRUB_CMDLINE_LINUX="ro quiet numa=off"\n', mode=0o600)
        policy = write(base, "p.toml", '[kernel.cmdline]\nabsent = ["numa=off"]\n', mode=0o644)
        for d, dirs, files in os.walk(base):
            for name in dirs:
                os.chmod(os.path.join(d, name), 0o755)
        env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO), HOME=base)
        if not _nobody_can_run(env, base):
            pytest.skip("user nobody cannot run numatune from this checkout with %s" % SYSTEM_PYTHON)
        proc = subprocess.run([SYSTEM_PYTHON, "-m", "numatune", "plan", "--root", str(root), "--policy",
                               str(policy), "--format", "json"], capture_output=True, text=True, env=env,
                              cwd=base, user=NOBODY)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        plan = json.loads(proc.stdout)
        [finding] = [f for f in plan["findings"] if f["id"] == "cmdline.bootconfig-unreadable"]
        assert "/etc/default/grub" in finding["message"] and finding["severity"] == "critical"
        assert not [c for c in plan["changes"] if c["id"].startswith("cmdline.")]
    finally:
        shutil.rmtree(base)


def test_a_bls_entry_that_is_a_link_loop_is_a_finding_not_a_traceback(tmp_path, cli):
    """A BLS entry symlinked to itself (ELOOP on read): the same critical finding naming it, no boot change."""
    root = fakehost.build(tmp_path / "root")
    entries = root / "boot/loader/entries"
    entries.mkdir(parents=True, exist_ok=True)
    os.symlink("loop.conf", str(entries / "loop.conf"))
    policy = write(tmp_path, "p.toml", '[kernel.cmdline]\nabsent = ["numa=off"]\n')
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--format", "json")
    assert status == 0 and "Traceback" not in err, err
    plan = json.loads(out)
    [finding] = [f for f in plan["findings"] if f["id"] == "cmdline.bootconfig-unreadable"]
    assert "loop.conf" in finding["message"] and finding["severity"] == "critical"
    assert not [c for c in plan["changes"] if c["id"].startswith("cmdline.")]
