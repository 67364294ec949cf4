"""The cpu family's reads on a giant host (issue #38): 480 CPUs' 1,920
C-states, 480 cpufreq policies and 1,000 processes' descriptors. A CPU's
states and the policies are read in their listed directory (Root.read_values_under),
a process's fd links through one descriptor (Root.links), and /proc/PID/comm by its
whole path: none of them keeps a directory of its own, which cost an openat2
each and pushed out the directories the plan's other reads keep. What the reads
give is the same as reading each directory on its own (tests/test_cpu_power.py
holds the plans)."""
import errno
import os

import pytest

from numatune.errors import ExhaustedError
from numatune.facts.procs import table
from numatune.families.cpu import facts as cpupower
from numatune import root as rootmod
from numatune.root import Root
from test_cpu_power import make_power_root

CPUS = list(range(8))


def _kept(root):
    return [key for key in root._dirs if "/cpuidle/" in key or "/cpufreq/" in key or key.startswith("/proc/")]


def _states_one_by_one(root, cpu):
    """A CPU's states as reading each state's directory on its own gives them."""
    base = "%s/cpu%d/cpuidle" % (cpupower.CPU_DIR, cpu)
    out = []
    for name in root.listdir(base):
        if cpupower._STATE.match(name):
            texts = root.read_values(base + "/" + name, cpupower._STATE_FILES)
            out.append((int(name[5:]), texts["name"], texts["latency"], texts["disable"]))
    return sorted(out)


def test_cstates_and_policies_are_read_keeping_no_directory_each(tmp_path):
    make_power_root(tmp_path, CPUS, disabled={(5, 3)})
    root = Root(str(tmp_path))
    idle = cpupower.read_cpuidle(root, CPUS)
    freq = cpupower.read_cpufreq(root, CPUS)
    # The first policy's directory, where its scaling_driver is read: none per state or policy.
    assert _kept(root) == ["/sys/devices/system/cpu/cpufreq/policy0"]
    for cpu in CPUS:
        got = sorted((s["index"], s["name"], str(s["latency"]), "1" if s["disabled"] else "0")
                     for s in idle["cpus"][str(cpu)])
        assert got == _states_one_by_one(Root(str(tmp_path)), cpu)
    assert idle["cpus"]["5"][3]["path"] == "/sys/devices/system/cpu/cpu5/cpuidle/state3/disable"
    assert freq["driver"] == "intel_pstate"
    assert [(p["path"], p["cpus"], p["governor"]) for p in freq["policies"]] == [
        ("/sys/devices/system/cpu/cpufreq/policy%d" % c, [c, c + 1], "powersave") for c in range(0, 8, 2)]


def _procs(tmp_path):
    for pid, links in ((1, {"0": "/dev/null", "3": "socket:[1]"}), (20, {"0": "/dev/null", "9": "/dev/cpu_dma_latency"}),
                       (300, {})):
        fd = tmp_path / ("proc/%d/fd" % pid)
        fd.mkdir(parents=True)
        (tmp_path / ("proc/%d/comm" % pid)).write_text("p%d\n" % pid)
        for name, target in links.items():
            os.symlink(target, fd / name)
    (tmp_path / "proc/4000").mkdir()                     # gone before its fd/ was listed
    (tmp_path / "proc/300/fd/5").write_text("not a link")   # a capture's odd entry: no target


def test_fd_links_and_comm_are_read_keeping_no_process_directory(tmp_path):
    _procs(tmp_path)
    root = Root(str(tmp_path))
    assert cpupower.dma_latency_holders(root) == [{"pid": 20, "comm": "p20"}]
    assert table(root).by_comm(["p1", "p300"]) == {"p1": [1], "p300": [300]}
    assert _kept(root) == []


def test_links_are_the_readlinks_of_a_listing(tmp_path):
    _procs(tmp_path)
    root = Root(str(tmp_path))
    got = root.links("/proc/300/fd")
    assert got == {"5": None}
    assert root.links("/proc/20/fd/") == {"0": "/dev/null", "9": "/dev/cpu_dma_latency"}
    assert root.links("/proc/4000/fd") == {} and root.links("/proc/20/comm") == {}


@pytest.fixture(params=["openat2", "walk"])
def resolver(request, monkeypatch):
    """Both ways of confining (as tests/test_hostile_root.py has them)."""
    if request.param == "walk":
        monkeypatch.setattr(rootmod._Openat2, "works", False)
    else:
        monkeypatch.setattr(rootmod._Openat2, "works", None)
        if rootmod._openat2(os.open("/", os.O_PATH), ".", os.O_PATH) is None:
            pytest.skip("this kernel has no openat2")
    return request.param


def test_an_entry_that_is_a_link_is_read_inside_the_root(tmp_path, resolver):
    # A copied tree's state directory that is a link (absolute, or climbing past "/"): followed inside the root.
    make_power_root(tmp_path, [0], states=[(0, "POLL", 0), (1, "C1", 2)])
    base = tmp_path / "sys/devices/system/cpu/cpu0/cpuidle"
    os.rename(base / "state1", tmp_path / "elsewhere")
    os.symlink("/elsewhere", base / "state1")
    os.symlink("../../../../../../../../elsewhere", base / "state2")
    os.symlink("/nowhere", base / "state3")
    root = Root(str(tmp_path))
    got = root.read_values_under("/sys/devices/system/cpu/cpu0/cpuidle", cpupower._STATE.match, ("name", "latency"))
    assert got == {"state0": {"name": "POLL", "latency": "0"}, "state1": {"name": "C1", "latency": "2"},
                   "state2": {"name": "C1", "latency": "2"}, "state3": {"name": None, "latency": None}}
    assert root.read_values_under("/sys/missing", cpupower._STATE.match, ("name",)) == {}


def test_running_out_of_descriptors_is_not_read_as_missing(tmp_path, monkeypatch):
    _procs(tmp_path)
    make_power_root(tmp_path, [0])
    root = Root(str(tmp_path))

    def exhausted(*args, **kwargs):
        raise OSError(errno.EMFILE, "Too many open files")
    monkeypatch.setattr(os, "listdir", exhausted)
    with pytest.raises(ExhaustedError):
        root.links("/proc/1/fd")
    with pytest.raises(ExhaustedError):
        root.read_values_under("/sys/devices/system/cpu/cpu0/cpuidle", cpupower._STATE.match, ("name",))


def test_on_the_live_root_links_are_followed_as_they_are(tmp_path):
    make_power_root(tmp_path, [0], states=[(0, "POLL", 0), (1, "C1", 2)])
    base = tmp_path / "sys/devices/system/cpu/cpu0/cpuidle"
    os.symlink(str(base / "state1"), base / "state2")
    _procs(tmp_path)
    live = Root("/")
    got = live.read_values_under(str(base), cpupower._STATE.match, ("name",))
    assert got == {"state0": {"name": "POLL"}, "state1": {"name": "C1"}, "state2": {"name": "C1"}}
    assert live.links(str(tmp_path / "proc/20/fd")) == {"0": "/dev/null", "9": "/dev/cpu_dma_latency"}
