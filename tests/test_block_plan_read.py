"""A plan's storage read leaves out what only `numatune facts` shows (issue
#38): no device's size, holders/ or NUMA node (its SCSI device's numa_node,
the walk up from it, the device link it starts at) is read for a plan, a
quarter of a giant host's storage files; `numatune facts`, recommend and
`facts --format policy` read each device whole, as before (the family's
read_whole, which gather calls for every family)."""
import sys

import pytest

from conftest import REPO
from numatune import engine
from numatune.families.storage import facts as facts_block, knob
from numatune.policy.stack import load as load_policy
from numatune.root import Root

sys.path.insert(0, str(REPO / "bench"))
import bench_policy  # noqa: E402
from make_host import make_host  # noqa: E402


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    work = tmp_path_factory.mktemp("planread")
    make_host(str(work / "root"), sockets=2, nodes=2, cpus=8, luns=6, paths=2, nics=1, queues=2, instances=1,
              procs=20)
    bench_policy.build(str(work / "policy.toml"))
    root = Root(str(work / "root"))
    return root, load_policy([str(work / "policy.toml")], root)


def _recording(root, monkeypatch):
    """The paths ``root`` is asked to read, list or readlink (and the names read in a directory)."""
    asked = []
    for method in ("read_text", "listdir", "readlink"):
        real = getattr(root, method)
        monkeypatch.setattr(root, method, lambda path, *a, real=real: asked.append(path) or real(path, *a))
    real_texts = root.read_texts
    monkeypatch.setattr(root, "read_texts", lambda directory, names: asked.extend(
        "%s/%s" % (directory, n) for n in names) or real_texts(directory, names))
    return asked


def test_a_plan_reads_no_device_s_size_holders_or_numa_node(bench, monkeypatch):
    root, policy = bench
    asked = _recording(root, monkeypatch)
    devices = knob.read(root, policy.data)["devices"]
    assert devices and all(not set(facts_block.ONLY_SHOWN) & set(d) for d in devices.values())
    ends = ("/size", "/holders", "/numa_node", "/device")
    assert [p for p in asked if p.startswith("/sys/") and p.endswith(ends)] == []


def test_the_whole_read_is_the_plan_s_with_what_only_facts_shows(bench, monkeypatch):
    root, policy = bench
    lean, whole = knob.read(root, policy.data), knob.read_whole(root, policy.data)
    assert set(lean) == set(whole)
    for name, dev in whole["devices"].items():
        assert {k: v for k, v in dev.items() if k not in facts_block.ONLY_SHOWN} == lean["devices"][name]
        assert set(facts_block.ONLY_SHOWN) <= set(dev)
    # A multipath map answers to its paths' NUMA node, in the whole read.
    maps = [d for d in whole["devices"].values() if d["kind"] == "dm-multipath"]
    assert maps and all(m["numa_node"] is not None for m in maps)
    # The whole read is discovery's own, as `numatune facts` always read it.
    assert facts_block.discover(root, attrs=knob.asked(policy.data), read={})[1] == {
        n: {k: v for k, v in d.items() if k != "settings"} for n, d in whole["devices"].items()}


def test_facts_reads_each_device_whole_and_a_plan_does_not(bench):
    root, policy = bench
    shown = engine.gather(root, policy.data, every=True)["storage"]["devices"]
    planned = engine.gather(root, policy.data)["storage"]["devices"]
    assert set(shown) == set(planned)
    assert all(set(facts_block.ONLY_SHOWN) <= set(d) for d in shown.values())
    assert all(not set(facts_block.ONLY_SHOWN) & set(d) for d in planned.values())
