"""cpusets on the guest's cgroup v2 (cpuset controller, NAME.slice) bound to NUMA node 1."""
import signal
import subprocess
from pathlib import Path

import pytest

from labkit import cycle, guest_only, numatune, policy_file, read

pytestmark = guest_only
CG = Path("/sys/fs/cgroup")
NODE1 = Path("/sys/devices/system/node/node1")


def state(name):
    def read_all():
        path = CG / (name + ".slice")
        cg = {f: read(path / f) for f in ("cpuset.cpus", "cpuset.mems")} if path.is_dir() else None
        return cg, read(CG / "cgroup.subtree_control")
    return read_all


@pytest.fixture
def sleeper():
    """A process of the test's own to place into the cpuset; moved back to the root cgroup and killed after."""
    proc = subprocess.Popen(["sleep", "600"])
    yield proc
    try:
        (CG / "cgroup.procs").write_text(str(proc.pid))
    except OSError:
        pass
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def allowed(pid):
    lines = Path("/proc/%d/status" % pid).read_text().splitlines()
    return {k: v.strip() for k, _, v in (x.partition(":") for x in lines) if k.endswith("_allowed_list")}


def test_nodes_1_resolves_to_node1_cpus_and_a_process_runs_there(tmp_path, sleeper):
    """nodes = [1] creates labdb.slice with node 1's exact cpulist and mems 1; a process placed in it runs on them."""
    policy = policy_file(tmp_path, '[[cpuset]]\nname = "labdb"\nnodes = [1]\npersist = "none"\n')

    def place(applied):
        (CG / "labdb.slice" / "cgroup.procs").write_text(str(sleeper.pid))
        got = allowed(sleeper.pid)
        assert got["Cpus_allowed_list"] == read(NODE1 / "cpulist")
        assert got["Mems_allowed_list"] == "1"
        (CG / "cgroup.procs").write_text(str(sleeper.pid))      # out again, so revert may remove it

    before, applied, _ = cycle(policy, state("labdb"), inside=place)
    assert before[0] is None
    assert applied[0] == {"cpuset.cpus": read(NODE1 / "cpulist"), "cpuset.mems": "1"}
    assert "cpuset" in applied[1].split()


def test_removing_a_populated_cpuset_is_refused(tmp_path, sleeper):
    """revert keeps a cpuset with a task in it (and its parent's controller): it says so, the task stays on node 1."""
    policy = policy_file(tmp_path, '[[cpuset]]\nname = "labbusy"\nnodes = [1]\npersist = "none"\n')
    controllers = read(CG / "cgroup.subtree_control").split()
    status, out, err = numatune("apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    path = CG / "labbusy.slice"
    (path / "cgroup.procs").write_text(str(sleeper.pid))
    status, out, err = numatune("revert", "--last")
    try:
        assert status != 0
        assert "task(s) (pid %d)" % sleeper.pid in out + err
        assert path.is_dir() and str(sleeper.pid) in read(path / "cgroup.procs").split()
        assert "cpuset" in read(CG / "cgroup.subtree_control").split()
        assert allowed(sleeper.pid) == {"Cpus_allowed_list": read(NODE1 / "cpulist"), "Mems_allowed_list": "1"}
    finally:
        (CG / "cgroup.procs").write_text(str(sleeper.pid))
        if path.is_dir():
            path.rmdir()
        if "cpuset" not in controllers:
            (CG / "cgroup.subtree_control").write_text("-cpuset")
