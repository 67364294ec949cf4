"""[[cpuset]]: on the real kernel's cgroup v1 cpuset hierarchy, and on roots
built from the real NUMA captures with a cpuset hierarchy (v1, RHEL 6's
/cgroup/cpuset, v2) made in the test."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid

import pytest

import conftest
from conftest import CAPTURES, tree_digest, write

CPUSET = "/sys/fs/cgroup/cpuset"
V1_FILES = {"cpuset.cpus": None, "cpuset.mems": None, "cpuset.memory_migrate": "0\n",
            "cpuset.cpu_exclusive": "0\n", "cpuset.effective_cpus": None, "cpuset.effective_mems": None,
            "tasks": "1\n", "cgroup.procs": "1\n"}


# What planning a cpuset reads of a capture: node and CPU topology, meminfo.
NEEDED = re.compile(r"(^|/)(sys/devices/system/node(/node\d+(/(cpulist|cpumap|distance|meminfo))?|"
                    r"/(online|possible|has_memory|has_cpu))?|sys/devices/system/cpu(/(online|possible|present|"
                    r"offline)|/cpu\d+(/topology(/[a-z_]+)?)?)?|proc(/(meminfo|cmdline|sys(/kernel(/osrelease)?)?))?)$")
_small = {}


def _source(name, cache):
    """Only the topology files of a capture (a full unpack writes up to 11,000
    files), unpacked once per session."""
    if name not in _small:
        import tarfile
        dest = cache / ("topology-" + name)
        dest.mkdir()
        with tarfile.open(CAPTURES[name]) as tar:
            members = [m for m in tar.getmembers() if NEEDED.search(m.name)]
            tar.extractall(dest, members=members, **({"filter": "fully_trusted"}
                                                      if hasattr(tarfile, "data_filter") else {}))
        _small[name] = next(p.parent for p in sorted(dest.rglob("sys")) if (p / "devices").is_dir())
    return _small[name]


@pytest.fixture
def linked(capture_cache, tmp_path):
    """A root with a copy of the capture's topology files (a few hundred:
    links out of the root are no longer followed, numatune keeps every path
    inside it) and its own /proc/mounts, cgroup tree and /etc."""
    def make(name):
        src = _source(name, capture_cache)
        dest = tmp_path / ("root-" + name)
        for top in ("sys", "proc"):
            (dest / top).mkdir(parents=True)
            for entry in os.listdir(src / top):
                if (top, entry) not in (("sys", "fs"), ("proc", "mounts")):
                    if (src / top / entry).is_dir() and not (src / top / entry).is_symlink():
                        shutil.copytree(src / top / entry, dest / top / entry, symlinks=True)
                    else:
                        shutil.copy2(src / top / entry, dest / top / entry, follow_symlinks=False)
        return dest
    return make


def _node_cpulist(root, nid):
    """The node's cpus straight from the capture: cpulist, else the hex cpumap."""
    base = root / ("sys/devices/system/node/node%s" % nid)
    if (base / "cpulist").exists():
        return (base / "cpulist").read_text().strip("\x00\n ")
    value = int((base / "cpumap").read_text().strip().replace(",", ""), 16)
    cpus = [i for i in range(value.bit_length()) if value >> i & 1]
    return _compact(cpus)


def _compact(cpus):
    out, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            out.append(str(start) if start == c else "%d-%d" % (start, c))
            start = None
    return ",".join(out)


def _all_cpus(root):
    nodes = sorted(p.name[4:] for p in (root / "sys/devices/system/node").glob("node[0-9]*"))
    cpus = sorted(c for n in nodes for c in _expand(_node_cpulist(root, n)))
    return _compact(cpus), ",".join(n for n in nodes)


def _expand(text):
    out = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        out += range(int(a), int(b or a) + 1)
    return out


def cgroup_v1(root, mount=CPUSET, noprefix=False):
    opts = "rw,relatime,cpuset" + (",noprefix" if noprefix else "")
    write(root, "/proc/mounts", "proc /proc proc rw 0 0\ncgroup %s cgroup %s 0 0\n" % (mount, opts))
    cpus, mems = _all_cpus(root)
    for name, text in V1_FILES.items():
        if noprefix:
            name = name.replace("cpuset.", "")
        write(root, "%s/%s" % (mount, name), text or ("%s\n" % (mems if "mems" in name else cpus)))


def policy(tmp_path, text):
    return write(tmp_path, "p-%s.toml" % uuid.uuid4().hex[:6], text)


def plan_json(cli, root, pol):
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--only", "cpu", "--format", "json")
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize("name,node", [("40intel64-2g2n4c+pcilocality", "1"), ("x86_64-64cpu", "2"),
                                       ("rv64-milkvpioneer", "3"), ("x86_64-64cpu", "0")])
def test_nodes_resolve_to_the_exact_cpulist_and_apply_revert_exactly(name, node, linked, cli, tmp_path):
    root = linked(name)
    cgroup_v1(root)
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [%s]\nmemory_migrate = false\n' % node)
    plan = plan_json(cli, root, pol)
    create = [c for c in plan["changes"] if c["id"] == "cpuset.create:oracle"]
    assert len(create) == 1
    expected = _node_cpulist(root, node)
    assert "," in expected or name.startswith("40intel"), "pick sparse or interleaved nodes"
    assert create[0]["desired"] == "cpus=%s mems=%s memory_migrate=0" % (expected, node)
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--yes")
    assert status == 0, err + out
    assert (root / "sys/fs/cgroup/cpuset/oracle/cpuset.cpus").read_text() == expected + "\n"
    assert (root / "sys/fs/cgroup/cpuset/oracle/cpuset.mems").read_text() == node + "\n"
    assert plan_json(cli, root, pol)["changes"] == []
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, err + out
    assert tree_digest(root) == before


def _distance(root, a, b):
    nodes = sorted(int(p.name[4:]) for p in (root / "sys/devices/system/node").glob("node[0-9]*"))
    row = (root / ("sys/devices/system/node/node%d/distance" % a)).read_text().split()
    return int(row[nodes.index(b)])


@pytest.mark.parametrize("name,cpu_node,mem_node", [("64amd64-4s2n4ca2co", 0, 7), ("64amd64-4s2n4ca2co", 0, 1),
                                                    ("memorysidecaches", 0, 3),
                                                    ("40intel64-2g2n4c+pcilocality", 2, 0)])
def test_remote_memory_is_a_critical_finding_with_the_distances(name, cpu_node, mem_node, linked, cli,
                                                                 tmp_path):
    root = linked(name)
    cgroup_v1(root)
    cpus = _node_cpulist(root, cpu_node)
    pol = policy(tmp_path, '[[cpuset]]\nname = "db"\ncpus = "%s"\nmems = "%d"\n' % (cpus, mem_node))
    plan = plan_json(cli, root, pol)
    (finding,) = [f for f in plan["findings"] if f["id"] == "cpuset.remote-memory:db"]
    assert finding["severity"] == "critical"
    far, local = _distance(root, cpu_node, mem_node), _distance(root, cpu_node, cpu_node)
    assert far != local
    assert "distance %d vs %d local" % (far, local) in finding["message"]
    assert "2.15x fewer logical reads" in finding["message"]


def test_cpus_on_two_nodes_with_mems_on_one_and_sga_spanning(linked, cli, tmp_path):
    root = linked("16amd64-4n4c-cgroup-distance-merge")
    cgroup_v1(root)
    both = _compact(sorted(_expand(_node_cpulist(root, 0)) + _expand(_node_cpulist(root, 1))))
    pol = policy(tmp_path, '[[cpuset]]\nname = "a"\ncpus = "%s"\nmems = "0"\n\n'
                           '[[cpuset]]\nname = "b"\nnodes = [2, 3]\nsga_size = "1G"\n' % both)
    ids = {f["id"]: f for f in plan_json(cli, root, pol)["findings"]}
    assert ids["cpuset.cpus-span-nodes:a"]["severity"] == "warning"
    assert "node 1 cpus reach node 0 memory at distance 20 vs 10" in ids["cpuset.cpus-span-nodes:a"]["message"]
    assert "fits node 2" in ids["cpuset.sga-spans-nodes:b"]["message"]
    assert "cpuset.remote-memory:b" not in ids


def test_offline_absent_cpus_and_overlapping_exclusive_cpusets(linked, cli, tmp_path):
    root = linked("16amd64-4n4c-cgroup-distance-merge")
    cgroup_v1(root)
    # The root's CPU files are its own copy: take a CPU offline in it.
    write(root, "/sys/devices/system/cpu/online", "0-14\n")
    pol = policy(tmp_path, '[[cpuset]]\nname = "a"\ncpus = "14-15,99"\nmems = "3"\n\n'
                           '[[cpuset]]\nname = "b"\ncpus = "0-3"\nmems = "0"\ncpu_exclusive = true\n\n'
                           '[[cpuset]]\nname = "c"\ncpus = "2-5"\nmems = "0"\n')
    plan = plan_json(cli, root, pol)
    ids = {f["id"]: f for f in plan["findings"]}
    assert "99" in ids["cpuset.cpus-absent:a"]["message"]
    assert "15" in ids["cpuset.cpus-offline:a"]["message"]
    assert ids["cpuset.overlap:c:b"]["severity"] == "critical"
    assert "2-3" in ids["cpuset.overlap:c:b"]["message"]
    created = {c["id"] for c in plan["changes"]}
    assert "cpuset.create:a" not in created and "cpuset.create:b" in created


def test_existing_populated_cpuset_mems_change_needs_restart(linked, cli, tmp_path):
    root = linked("64amd64-4s2n4ca2co")
    cgroup_v1(root)
    base = CPUSET + "/oracle"
    for name, text in (("cpuset.cpus", "0-7\n"), ("cpuset.mems", "1\n"), ("cpuset.memory_migrate", "0\n"),
                       ("tasks", "4242\n"), ("cgroup.procs", "4242\n")):
        write(root, "%s/%s" % (base, name), text)
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [0]\n')
    plan = plan_json(cli, root, pol)
    changes = {c["id"]: c for c in plan["changes"]}
    assert "cpuset.cpus:oracle" not in changes  # node 0 is 0-7 already
    assert changes["cpuset.mems:oracle"]["restart_required"] is True
    assert changes["cpuset.mems:oracle"]["current"] == "1"
    assert "restart the instance" in {f["id"]: f for f in plan["findings"]}["cpuset.mems-restart:oracle"]["message"]


def test_owner_from_the_roots_passwd_and_group(linked, cli, tmp_path):
    root = linked("16amd64-4n4c-cgroup-distance-merge")
    cgroup_v1(root)
    write(root, "/etc/passwd", "root:x:0:0::/root:/bin/sh\noracle:x:54321:54321::/home/oracle:/bin/bash\n")
    write(root, "/etc/group", "root:x:0:\noinstall:x:54321:\ndba:x:54322:oracle\n")
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [1]\nowner = { uid = "oracle", gid = "dba" }\n')
    plan = plan_json(cli, root, pol)
    (create,) = plan["changes"]
    assert create["writes"][0]["args"]["uid"] == 54321 and create["writes"][0]["args"]["gid"] == 54322
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [1]\nowner = { uid = "grid", gid = "dba" }\n')
    plan = plan_json(cli, root, pol)
    assert plan["changes"] == []
    assert "user 'grid' is not in /etc/passwd" in plan["findings"][0]["message"]


def test_rhel6_cgroup_mount_and_cgconfig_group_planned_with_live(linked, cli, tmp_path):
    root = linked("40intel64-2g2n4c+pcilocality")
    cgroup_v1(root, mount="/cgroup/cpuset")
    old = "mount {\n    cpuset = /cgroup/cpuset;\n}\n\ngroup oracle {\n    cpuset {\n" \
          "        cpuset.cpus = \"0\";\n        cpuset.mems = \"0\";\n    }\n}\n"
    write(root, "/etc/cgconfig.conf", old)
    write(root, "/etc/passwd", "oracle:x:500:500::/home/oracle:/bin/bash\n")
    write(root, "/etc/group", "oinstall:x:500:\ndba:x:501:oracle\n")
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [0]\nmemory_migrate = true\n'
                           'owner = { uid = "oracle", gid = "dba" }\n')
    plan = plan_json(cli, root, pol)
    ids = {c["id"]: c for c in plan["changes"]}
    assert ids["cpuset.create:oracle"]["target"] == "/cgroup/cpuset/oracle"
    assert ids["cpuset.persist:oracle"]["target"] == "/etc/cgconfig.conf: group oracle"
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--yes")
    assert status == 0, err + out
    text = (root / "etc/cgconfig.conf").read_text()
    assert text.startswith("mount {") and text.count("group oracle") == 1
    assert 'cpuset.cpus = "%s";' % _node_cpulist(root, 0) in text and 'cpuset.memory_migrate = "1";' in text
    assert "task { uid = oracle; gid = dba; }" in text
    made = root / "cgroup/cpuset/oracle"
    assert (made.stat().st_uid, made.stat().st_gid, (made / "tasks").stat().st_uid) == (500, 501, 500)
    assert plan_json(cli, root, pol)["changes"] == []
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before


def test_cgroup_v2_enables_the_controller_and_writes_a_slice(linked, cli, tmp_path):
    root = linked("32amd64-4s2n4c-cgroup2")
    write(root, "/proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n")
    write(root, "/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n")
    write(root, "/sys/fs/cgroup/cgroup.subtree_control", "memory pids\n")
    for name in ("cgroup.procs", "cpuset.cpus", "cpuset.mems", "cpuset.cpus.effective", "cpuset.mems.effective"):
        write(root, "/sys/fs/cgroup/" + name, "\n")
    (root / "run/systemd/system").mkdir(parents=True)
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [3]\nmemory_migrate = false\n')
    plan = plan_json(cli, root, pol)
    ids = {c["id"]: c for c in plan["changes"]}
    assert set(ids) == {"cpuset.enable:/sys/fs/cgroup", "cpuset.create:oracle", "cpuset.persist:oracle"}
    assert ids["cpuset.create:oracle"]["target"] == "/sys/fs/cgroup/oracle.slice"
    assert "cpuset.v2-migrate:oracle" in {f["id"] for f in plan["findings"]}
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--yes")
    assert status == 0, err + out
    assert "cpuset" in (root / "sys/fs/cgroup/cgroup.subtree_control").read_text().split()
    unit = (root / "etc/systemd/system/oracle.slice").read_text()
    assert "AllowedCPUs=%s\n" % _node_cpulist(root, 3) in unit and "AllowedMemoryNodes=3\n" in unit
    # A slice nothing wants is never started at boot (the lab's reboot test): slices.target wants it.
    wants = (root / "etc/systemd/system/slices.target.d/numatune-oracle.conf").read_text()
    assert "[Unit]\nWants=oracle.slice\n" in wants
    assert plan_json(cli, root, pol)["changes"] == []
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before


def test_v2_revert_keeps_the_controller_for_a_kept_populated_cpuset(linked, cli, tmp_path):
    """Found in the QEMU lab (tests/lab): a populated cpuset that revert keeps must keep its
    parent's cpuset controller too, else the kernel silently unbinds its tasks."""
    root = linked("32amd64-4s2n4c-cgroup2")
    write(root, "/proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n")
    write(root, "/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n")
    write(root, "/sys/fs/cgroup/cgroup.subtree_control", "memory pids\n")
    for name in ("cgroup.procs", "cpuset.cpus", "cpuset.mems", "cpuset.cpus.effective", "cpuset.mems.effective"):
        write(root, "/sys/fs/cgroup/" + name, "\n")
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [3]\npersist = "none"\n')
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--yes")
    assert status == 0, err + out
    (made,) = [p for p in (root / "sys/fs/cgroup").iterdir() if p.name.startswith("oracle")]
    (made / "cgroup.procs").write_text("4242\n")
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 1, out + err
    assert "1 task(s) (pid 4242)" in out + err and "%s still set(s) its own cpus/mems" % made.name in out + err
    assert "cpuset" in (root / "sys/fs/cgroup/cgroup.subtree_control").read_text().split()
    assert (made / "cpuset.mems").read_text().strip() == "3"


def test_noprefix_mount_and_policy_errors(linked, cli, tmp_path):
    root = linked("16amd64-4n4c-cgroup-distance-merge")
    cgroup_v1(root, mount="/dev/cpuset", noprefix=True)
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [0]\n')
    (create,) = plan_json(cli, root, pol)["changes"]
    assert create["writes"][0]["args"]["settings"][0][0] == "cpus"
    before = tree_digest(root, ignore=())
    for text, words in (('[[cpuset]]\nname = "x"\nnodes = [0]\ncpus = "1"\n', "not both"),
                        ('[[cpuset]]\nname = "x"\ncpus = "1"\n', "needs nodes"),
                        ('[[cpuset]]\nname = "../etc"\nnodes = [0]\n', "not a valid value"),
                        ('[[cpuset]]\nname = "x"\ncpus = "1-a"\nmems = "0"\n', "not a valid value")):
        status, out, err = cli("apply", "--root", root, "--policy", policy(tmp_path, text), "--yes")
        assert status == 2 and len(err.strip().splitlines()) == 1 and words in err, err
    assert tree_digest(root, ignore=()) == before


# --- the real kernel ---------------------------------------------------------------------------------------

def _real_cpuset_or_skip():
    if os.geteuid() != 0:
        pytest.skip("needs root to create a cpuset")
    mounts = open("/proc/mounts").read()
    if not re.search(r"^\S+ %s cgroup \S*cpuset" % re.escape(CPUSET), mounts, re.M):
        pytest.skip("no cgroup v1 cpuset hierarchy at %s" % CPUSET)


def _retry(cli, *args):
    # Other tests (and engineers) may hold the live root's run lock briefly.
    for _ in range(50):
        status, out, err = cli(*args)
        if "another numatune run" not in err:
            return status, out, err
        time.sleep(0.2)
    return status, out, err


def test_real_kernel_create_verify_revert_and_populated_is_kept(cli, tmp_path):
    _real_cpuset_or_skip()
    name = "numatune-test-%s" % uuid.uuid4().hex[:8]
    path = "%s/%s" % (CPUSET, name)
    top_cpus = open(CPUSET + "/cpuset.cpus").read().strip()
    top_mems = open(CPUSET + "/cpuset.mems").read().strip()
    pol = policy(tmp_path, '[[cpuset]]\nname = "%s"\ncpus = "%s"\nmems = "%s"\nmemory_migrate = true\n'
                 % (name, top_cpus, top_mems))
    child = None
    try:
        status, out, err = _retry(cli, "apply", "--root", "/", "--policy", pol, "--only", "cpu", "--yes",
                                  "--format", "json")
        assert status == 0, err + out
        txid = json.loads(out)["txid"]
        assert open(path + "/cpuset.cpus").read().strip() == top_cpus
        assert open(path + "/cpuset.mems").read().strip() == top_mems
        assert open(path + "/cpuset.memory_migrate").read().strip() == "1"
        plan = plan_json(cli, "/", pol)
        assert plan["changes"] == [] and {c["rule"] for c in plan["compliant"]} >= {"cpuset.cpus:" + name}

        # A cpuset with a task is never removed by revert.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        with open(path + "/tasks", "w") as f:
            f.write(str(child.pid))
        status, out, err = _retry(cli, "revert", txid, "--root", "/")
        assert status == 1 and "not removed" in out and str(child.pid) in out, out
        assert os.path.isdir(path)

        with open(CPUSET + "/tasks", "w") as f:
            f.write(str(child.pid))
        status, out, err = _retry(cli, "revert", txid, "--root", "/", "--force")
        assert status == 0, err + out
        assert not os.path.exists(path)
    finally:
        if child is not None:
            child.kill()
            child.wait()
        if os.path.isdir(path):
            for pid in open(path + "/tasks").read().split():
                with open(CPUSET + "/tasks", "w") as f:
                    f.write(pid)
            os.rmdir(path)


def test_real_kernel_changes_an_existing_cpuset_and_restores_it(cli, tmp_path):
    _real_cpuset_or_skip()
    name = "numatune-test-%s" % uuid.uuid4().hex[:8]
    path = "%s/%s" % (CPUSET, name)
    top_cpus = open(CPUSET + "/cpuset.cpus").read().strip()
    top_mems = open(CPUSET + "/cpuset.mems").read().strip()
    first = top_cpus.replace("-", ",").split(",")[0]
    os.mkdir(path)
    try:
        for f, v in (("cpuset.cpus", first), ("cpuset.mems", top_mems)):
            with open("%s/%s" % (path, f), "w") as fh:
                fh.write(v)
        pol = policy(tmp_path, '[[cpuset]]\nname = "%s"\ncpus = "%s"\nmems = "%s"\nmemory_migrate = true\n'
                     % (name, top_cpus, top_mems))
        ids = {c["id"] for c in plan_json(cli, "/", pol)["changes"]}
        if top_cpus != first:
            assert "cpuset.cpus:" + name in ids
        assert "cpuset.memory_migrate:" + name in ids and "cpuset.create:" + name not in ids
        status, out, err = _retry(cli, "apply", "--root", "/", "--policy", pol, "--only", "cpu", "--yes",
                                  "--format", "json")
        assert status == 0, err + out
        assert open(path + "/cpuset.memory_migrate").read().strip() == "1"
        status, out, err = _retry(cli, "revert", json.loads(out)["txid"], "--root", "/")
        assert status == 0, err + out
        assert open(path + "/cpuset.cpus").read().strip() == first
        assert open(path + "/cpuset.memory_migrate").read().strip() == "0"
        assert os.path.isdir(path)  # it was there before: revert keeps it
    finally:
        os.rmdir(path)


def test_a_snapshot_of_this_vm_keeps_what_cpuset_planning_reads(cli, tmp_path):
    if not os.path.isdir(CPUSET):
        pytest.skip("no cgroup v1 cpuset hierarchy here")
    import tarfile
    status, out, err = cli("snapshot", "--out", tmp_path / "vm.tar.gz")
    assert status == 0, err
    root = tmp_path / "snap"
    with tarfile.open(tmp_path / "vm.tar.gz") as tar:
        tar.extractall(root)
    pol = policy(tmp_path, '[[cpuset]]\nname = "numatune-snap"\nnodes = [0]\n')
    (create,) = plan_json(cli, root, pol)["changes"]
    node0 = open("/sys/devices/system/node/node0/cpulist").read().strip()
    assert create["target"] == CPUSET + "/numatune-snap"
    assert create["desired"] == "cpus=%s mems=0" % node0


def test_owner_is_applied_and_restored_on_an_existing_cpuset(linked, cli, tmp_path):
    root = linked("16amd64-4n4c-cgroup-distance-merge")
    cgroup_v1(root)
    write(root, "/etc/passwd", "oracle:x:54321:54321::/home/oracle:/bin/bash\n")
    write(root, "/etc/group", "dba:x:54322:oracle\n")
    for name, text in (("cpuset.cpus", "4-7\n"), ("cpuset.mems", "1\n"), ("tasks", ""), ("cgroup.procs", "")):
        write(root, "%s/oracle/%s" % (CPUSET, name), text)
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [1]\nowner = { uid = "oracle", gid = "dba" }\n')
    (change,) = plan_json(cli, root, pol)["changes"]
    assert change["id"] == "cpuset.owner:oracle" and change["desired"] == "54321:54322"
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--yes")
    assert status == 0, err + out
    d = root / "sys/fs/cgroup/cpuset/oracle"
    assert (d.stat().st_uid, (d / "tasks").stat().st_gid, (d / "cpuset.cpus").stat().st_uid) == (54321, 54322, 0)
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before


def test_cgconfig_editor_keeps_other_groups_and_is_idempotent():
    from numatune.families.cpuset.cgconfig import cgconfig_group, group_settings
    text = ("# site groups { with a brace in a comment\ngroup web {\n    cpu { cpu.shares = 100; }\n}\n"
            "group oracle {\n    cpuset { cpuset.cpus = 0; cpuset.mems = 0; }\n}\n")
    settings = [["cpuset.cpus", "0-9,40-49"], ["cpuset.mems", "0"]]
    new = cgconfig_group(text, "oracle", settings, "oracle", "dba")
    assert new.startswith("# site groups { with a brace") and "group web {\n    cpu { cpu.shares = 100; }" in new
    assert group_settings(new, "oracle") == {"cpuset.cpus": "0-9,40-49", "cpuset.mems": "0", "uid": "oracle",
                                             "gid": "dba"}
    assert cgconfig_group(new, "oracle", settings, "oracle", "dba") == new
    assert group_settings(new, "web") == {}
    fresh = cgconfig_group(None, "oracle", settings)
    assert group_settings(fresh, "oracle") == {"cpuset.cpus": "0-9,40-49", "cpuset.mems": "0"}


def test_slice_editor_keeps_a_units_other_settings():
    from numatune.families.cpuset.cgconfig import parse_unit, slice_set
    text = "[Unit]\nDescription=Oracle\n\n[Slice]\nCPUWeight=200\nAllowedCPUs=0-3\n"
    new = slice_set(text, {"AllowedCPUs": "0-9", "AllowedMemoryNodes": "0"})
    assert parse_unit(new) == {"Unit": {"Description": "Oracle"},
                               "Slice": {"CPUWeight": "200", "AllowedCPUs": "0-9", "AllowedMemoryNodes": "0"}}
    assert slice_set(new, {"AllowedCPUs": "0-9", "AllowedMemoryNodes": "0"}) == new


def test_a_cgconfig_group_left_unmanaged_is_reported(linked, cli, tmp_path):
    root = linked("16amd64-4n4c-cgroup-distance-merge")
    cgroup_v1(root)
    write(root, "/etc/cgconfig.conf", 'group oracle {\n    cpuset {\n        cpuset.cpus = "0-3";\n'
                                      '        cpuset.mems = "0";\n    }\n}\n')
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [1]\npersist = "none"\n')
    plan = plan_json(cli, root, pol)
    (f,) = [f for f in plan["findings"] if f["id"] == "cpuset.cgconfig-overrides:oracle"]
    assert "cpus 0-3, mems 0" in f["message"]
    assert [c["id"] for c in plan["changes"]] == ["cpuset.create:oracle"]


def test_a_saved_plan_creates_the_cpuset_and_refuses_after_drift(linked, cli, tmp_path):
    root = linked("64amd64-4s2n4ca2co")
    cgroup_v1(root)
    pol = policy(tmp_path, '[[cpuset]]\nname = "oracle"\nnodes = [2]\n')
    saved = tmp_path / "plan.json"
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--only", "cpu", "--out", saved)
    assert status == 0, err
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--plan", saved, "--yes")
    assert status == 0, err + out
    assert (root / "sys/fs/cgroup/cpuset/oracle/cpuset.mems").read_text() == "2\n"
    # The cpuset exists now: the saved "create" no longer matches the host.
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--only", "cpu", "--plan", saved, "--yes")
    assert status == 2 and "drifted" in err, err


from hypothesis import given, settings, strategies as st  # noqa: E402

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
LISTS = st.lists(st.integers(0, 300), min_size=1, max_size=20).map(lambda c: _compact(sorted(set(c))))


@settings(max_examples=30, deadline=None)
@given(name=NAMES, other=NAMES, cpus=LISTS, mems=LISTS, cpus2=LISTS)
def test_cgconfig_group_edit_is_idempotent_and_leaves_other_groups(name, other, cpus, mems, cpus2):
    from numatune.families.cpuset.cgconfig import cgconfig_group, group_settings
    if name == other:
        return
    base = cgconfig_group(None, other, [["cpuset.cpus", "0"], ["cpuset.mems", "0"]])
    once = cgconfig_group(base, name, [["cpuset.cpus", cpus], ["cpuset.mems", mems]], "oracle", "dba")
    assert cgconfig_group(once, name, [["cpuset.cpus", cpus], ["cpuset.mems", mems]], "oracle", "dba") == once
    changed = cgconfig_group(once, name, [["cpuset.cpus", cpus2], ["cpuset.mems", mems]])
    # A policy without owner does not own the perm block: it stays (#14 item 7).
    assert group_settings(changed, name) == {"cpuset.cpus": cpus2, "cpuset.mems": mems, "uid": "oracle", "gid": "dba"}
    assert group_settings(changed, other) == {"cpuset.cpus": "0", "cpuset.mems": "0"}
    assert changed.count("group %s {" % name) == 1


def test_a_new_cpuset_holding_a_cut_writes_temporary_is_still_reverted(cli, tmp_path):
    # The fault campaign (#28, a kill between a control file's write and its rename in a
    # copied tree): the temporary kept the new cpuset's directory from being removed.
    import fakehost
    root = fakehost.build(tmp_path / "root")
    cgroup_v1(root)
    before = tree_digest(root)
    pol = policy(tmp_path, '[[cpuset]]\nname = "ora1"\nnodes = [0]\n')
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--yes", "--only", "cpu")
    assert status == 0, err
    made = root / "sys/fs/cgroup/cpuset/ora1"
    (made / ".cpuset.cpus.numatune-tmp").write_text("0-3\n")
    status, out, err = cli("revert", "--last", "--root", root)
    assert status == 0, out + err
    assert tree_digest(root) == before
