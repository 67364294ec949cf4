"""Against this machine's real kernel: set a real sysctl through numatune on
`/`, read it back from the kernel, revert, and find the original. Also the
refusal to touch `/` without root."""
import os
import shutil
from pathlib import Path

import pytest

from conftest import run_cli, write

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="writes /proc/sys: needs root")
STATE = Path("/var/lib/numatune")
KEY = Path("/proc/sys/vm/stat_interval")


@pytest.fixture
def real_state():
    """Remove what the test's own journal adds to /var/lib/numatune."""
    existed = STATE.exists()
    journal = STATE / "journal"
    old = set(journal.glob("*.jsonl")) if journal.exists() else set()
    yield
    if journal.exists():
        for path in set(journal.glob("*.jsonl")) - old:
            path.unlink()
    if not existed and STATE.exists():
        shutil.rmtree(STATE)


@needs_root
def test_real_sysctl_set_and_revert(tmp_path, real_state):
    original = KEY.read_text()
    wanted = "7" if original.strip() != "7" else "8"
    policy = write(tmp_path, "p.toml", '[sysctl]\n"vm.stat_interval" = %s\n' % wanted)
    try:
        status, out, err = run_cli("plan", "--policy", policy, "--format", "json")
        assert status == 0, err
        status, out, err = run_cli("apply", "--yes", "--live-only", "--policy", policy)
        assert status == 0, out + err
        assert KEY.read_text().strip() == wanted
        assert "applied and verified" in out
        # Persistent changes were not asked for: the real /etc is untouched.
        assert not Path("/etc/sysctl.d/90-numatune.conf").exists()
        status, out, err = run_cli("revert", "--last")
        assert status == 0, out + err
        assert KEY.read_text() == original
    finally:
        KEY.write_text(original)


@needs_root
def test_kernel_refusal_rolls_back(tmp_path, real_state):
    """The kernel refuses a value (EINVAL): the run rolls back what it did."""
    original = KEY.read_text()
    swappiness = Path("/proc/sys/vm/swappiness")
    original_swappiness = swappiness.read_text()
    # stat_interval is written first (policy order), then the kernel refuses swappiness > 200.
    policy = write(tmp_path, "p.toml", '[sysctl]\n"vm.stat_interval" = %s\n"vm.swappiness" = 500\n'
                   % ("7" if original.strip() != "7" else "8"))
    try:
        status, out, err = run_cli("apply", "--yes", "--live-only", "--policy", policy)
        assert status == 1, out + err
        assert "vm.swappiness" in err and "Invalid argument" in err and "rolled back 2 write(s)" in err
        assert err.count("\n") == 1
        assert swappiness.read_text() == original_swappiness
        assert KEY.read_text() == original
    finally:
        KEY.write_text(original)
        swappiness.write_text(original_swappiness)


REFUSAL = ("numatune: numatune changes the real / only as root "
           "(run it with sudo, or use --root DIR on a copy)")


@pytest.mark.parametrize("command", [["apply", "--yes"], ["revert", "--last"]])
def test_non_root_is_refused_on_the_real_root(tmp_path, cli, monkeypatch, command):
    policy = write(tmp_path, "p.toml", '[sysctl]\n"vm.stat_interval" = 9\n')
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    args = command + (["--policy", policy] if command[0] == "apply" else [])
    status, out, err = cli(*args)
    assert status == 2
    assert err.strip() == REFUSAL


@needs_root
def test_non_root_process_is_refused():
    """The same as a real unprivileged process (Debian's own python3, which nobody may run)."""
    import pwd
    import subprocess
    from conftest import REPO
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK):
        pytest.skip("no system python3 for an unprivileged user")
    nobody = pwd.getpwnam("nobody")
    def drop():
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)
    probe = subprocess.run([python, "-c", "import sys; sys.path.insert(0, %r); import numatune.cli" % str(REPO)],
                           preexec_fn=drop, capture_output=True, text=True, cwd="/")
    if probe.returncode != 0:
        pytest.skip("nobody cannot read the checkout: %s" % probe.stderr.strip().splitlines()[-1:])
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1")
    proc = subprocess.run([python, "-m", "numatune", "apply", "--yes", "--policy", "oracle-numa"],
                          capture_output=True, text=True, env=env, preexec_fn=drop, cwd="/")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == REFUSAL


NODE0_POOL = Path("/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages")


@needs_root
@pytest.mark.skipif(not NODE0_POOL.exists(), reason="no per-node 2M HugePages pool")
def test_real_hugepages_pool_set_and_revert(tmp_path, real_state):
    original = NODE0_POOL.read_text()
    wanted = int(original) + 2
    policy = write(tmp_path, "p.toml", '[hugepages]\nsize = "2M"\ncount = %d\n' % wanted)
    # Two free 2 MB blocks are not always there on a loaded machine (tmpfs hosts, QEMU): compact first.
    Path("/proc/sys/vm/compact_memory").write_text("1\n")
    try:
        status, out, err = run_cli("apply", "--yes", "--live-only", "--policy", policy)
        if status == 1 and "memory" in out and "fragmented" in out:
            # The kernel gave fewer pages: apply must say so, exit 1, and revert must still be exact.
            assert int(NODE0_POOL.read_text()) < wanted
            status, out, err = run_cli("revert", "--last")
            assert status == 0, out + err
            assert NODE0_POOL.read_text() == original
            pytest.skip("the kernel could not allocate 2 more 2 MB pages (fragmented memory); the shortfall was "
                        "said and reverted")
        assert status == 0, out + err
        assert int(NODE0_POOL.read_text()) == wanted
        meminfo = Path("/proc/meminfo").read_text()
        assert "HugePages_Total:    %4d" % wanted in meminfo or "HugePages_Total: %d" % wanted in " ".join(
            meminfo.split())
        status, out, err = run_cli("revert", "--last")
        assert status == 0, out + err
        assert NODE0_POOL.read_text() == original
    finally:
        NODE0_POOL.write_text(original)
