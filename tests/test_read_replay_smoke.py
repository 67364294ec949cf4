"""bench/read_replay.py at a very small size: the reads a plan's fact
gathering makes are recorded once and replayed on a fresh Root (the read
layer measured alone, docs/performance.md)."""
import pickle
import subprocess
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import bench_policy  # noqa: E402
from make_host import make_host  # noqa: E402


def test_the_reads_are_recorded_and_replayed(tmp_path):
    root, policy, log = tmp_path / "host", tmp_path / "policy.toml", tmp_path / "reads.log"
    make_host(str(root), sockets=2, nodes=2, cpus=8, luns=3, paths=2, nics=2, queues=2, instances=2, procs=20)
    bench_policy.build(str(policy))
    tool = str(REPO / "bench/read_replay.py")
    subprocess.run([sys.executable, tool, "record", str(root), str(policy), str(log)], check=True, cwd=str(REPO))
    with open(log, "rb") as f:
        reads = pickle.load(f)
    names = {name for name, _ in reads}
    assert {"read_texts", "listdir", "readlink", "read_value_alone"} <= names, names
    # A read made inside another (read_values reads through read_texts) is not recorded again.
    assert all(args and isinstance(args[0], str) for _, args in reads)
    out = subprocess.run([sys.executable, tool, "replay", str(root), str(log), "2"], check=True, cwd=str(REPO),
                         capture_output=True, text=True).stdout
    assert out.startswith("%d reads: min " % len(reads)), out
