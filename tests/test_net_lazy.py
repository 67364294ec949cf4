"""A plan under --root never loads the live host's ethtool ioctl code
(rxnfc: ctypes structs, socket, fcntl): the RSS hash letters are checked and
compared by plain Python (#38: start-up is most of a many-NIC plan)."""
import os
import subprocess
import sys

from conftest import REPO, write
from test_net_plan import CAPTURE, POLICY, build

PROBE = ("import sys\nfrom numatune.cli import main\nstatus = main(sys.argv[1:])\n"
         "print(' '.join(m for m in ('socket', 'fcntl', 'numatune.families.network.rxnfc') if m in sys.modules))")


def test_a_plan_under_root_loads_no_ioctl_code(capture, tmp_path):
    root = build(capture(CAPTURE))
    policy = write(tmp_path, "net.toml", POLICY)
    assert "rx_flow_hash" in POLICY
    done = subprocess.run([sys.executable, "-c", PROBE, "plan", "--root", str(root), "--policy", str(policy)],
                          env=dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1"), cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert "rx-flow-hash" in done.stdout, done.stderr[-500:]
    assert done.stdout.splitlines()[-1] == ""
