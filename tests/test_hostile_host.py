"""Malformed host files (#14 item 6): every file the facts read, mutated
(empty, garbage, binary, huge, negative, a directory, a dangling link, a link
loop, a giant cpulist), gives a plan or one clear line, never a traceback;
a run that fails writes nothing. Hypothesis picks the file and the mutation;
NUMATUNE_FUZZ_EXAMPLES sets how many (CI keeps the default: under a minute)."""
import os
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fakehost
from conftest import STATE, tree_digest, write
from numatune.root import Root

EXAMPLES = int(os.environ.get("NUMATUNE_FUZZ_EXAMPLES", "40"))
POLICY = fakehost.POLICY + '\n[[cpuset]]\nname = "ora"\nnodes = [1]\n'


def _build(root):
    from test_cpuset import cgroup_v1
    fakehost.build(root)
    cgroup_v1(root)
    return root


def _files_read(tmp_path_factory):
    """Every host path a plan of POLICY reads, found by watching Root's reads."""
    from numatune import engine
    from numatune.policy.stack import load
    base = tmp_path_factory.mktemp("trace")
    root = _build(base / "root")
    seen = set()
    real_open, real_texts = Root._open_read, Root.read_texts

    def watch(self, path, *args):
        seen.add(path)
        return real_open(self, path, *args)

    def watch_texts(self, directory, names):
        # Batched reads of a directory's files (sysfs attributes) bypass _open_read.
        seen.update(directory.rstrip("/") + "/" + name for name in names)
        return real_texts(self, directory, names)
    Root._open_read, Root.read_texts = watch, watch_texts
    try:
        r = Root(str(root))
        engine.make_plan(r, load([str(write(base, "p.toml", POLICY))], r))
    finally:
        Root._open_read, Root.read_texts = real_open, real_texts
    return sorted(p for p in seen if os.path.isfile(str(root) + p))


FILES = []


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    if not FILES:
        FILES.extend(_files_read(tmp_path_factory))
    assert len(FILES) > 20, FILES
    return FILES


def _mutate(real, how, seed):
    if os.path.isdir(real) and not os.path.islink(real):
        shutil.rmtree(real)
    elif os.path.lexists(real):
        os.unlink(real)
    if how == "directory":
        os.mkdir(real)
    elif how == "dangling link":
        os.symlink("no/such/file", real)
    elif how == "link loop":
        os.symlink(os.path.basename(real), real)
    else:
        data = {"empty": b"", "garbage": b"%s = ]] {{ not-a-value ,,-" % seed,
                "binary": bytes(range(256)) + seed, "huge": b"9" * (1 << 20),
                "negative": b"-1\n", "giant cpulist": b"0-2000000000\n",
                "nested": b"[" * 100000}[how]
        with open(real, "wb") as f:
            f.write(data)


MUTATIONS = ["empty", "garbage", "binary", "huge", "negative", "giant cpulist", "nested", "directory",
             "dangling link", "link loop"]


def _one_line_or_plan(status, out, err):
    assert "Traceback" not in out + err
    assert status in (0, 1, 2, 3), (status, err)
    if status == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("numatune: "), err


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_any_mutated_host_file_gives_a_plan_or_one_line(files, tmp_path_factory, data):
    from numatune.cli import main
    import contextlib
    import io
    path = data.draw(st.sampled_from(files), label="file")
    how = data.draw(st.sampled_from(MUTATIONS), label="mutation")
    seed = data.draw(st.binary(max_size=16), label="seed")
    root = _build(tmp_path_factory.mktemp("fuzz") / "root")
    _mutate(str(root) + path, how, seed)
    policy = write(root.parent, "p.toml", POLICY)

    def run(*args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([str(a) for a in args])
            except SystemExit as e:
                status = e.code
        return status, out.getvalue(), err.getvalue()
    _one_line_or_plan(*run("plan", "--root", root, "--policy", policy))
    before = tree_digest(root)
    status, out, err = run("apply", "--root", root, "--policy", policy, "--yes")
    _one_line_or_plan(status, out, err)
    # A refusal or a rolled-back run leaves the tree as it was; a run that wrote what it could
    # and exits 1 because a critical finding stands says so in its one "not met" line.
    if status != 0 and "the policy is not met: " not in err:
        assert tree_digest(root) == before, err
    shutil.rmtree(root.parent, ignore_errors=True)


@pytest.mark.parametrize("path,text,says", [
    ("sys/devices/system/node/online", "zero-one\n", "node/online"),
    ("sys/devices/system/cpu/online", "0-2000000000\n", "above 65535"),
    ("sys/devices/system/node/node0/cpulist", "0-3x\n", "node0/cpulist"),
    ("sys/devices/system/node/node1/distance", "21 ten\n", "node1/distance"),
    ("sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "9-1\n", "thread_siblings_list"),
    ("sys/fs/cgroup/cpuset/other/cpuset.cpus", "all of them\n", "cpuset facts"),
])
def test_a_malformed_kernel_list_is_one_line_naming_it(cli, tmp_path, path, text, says):
    root = _build(tmp_path / "root")
    write(root, path, text)
    before = tree_digest(root)
    status, out, err = cli("apply", "--root", root, "--policy", write(tmp_path, "p.toml", POLICY), "--yes")
    assert status == 2 and says in err and len(err.strip().splitlines()) == 1, out + err
    assert tree_digest(root) == before


def test_saved_plans_and_plan_out_that_are_not_files(cli, tmp_path):
    root = _build(tmp_path / "root")
    policy = write(tmp_path, "p.toml", POLICY)
    for plan in (tmp_path, "/dev/zero", write(tmp_path, "deep.json", "[" * 100000)):
        status, out, err = cli("apply", "--root", root, "--plan", plan, "--yes")
        assert status == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    status, out, err = cli("plan", "--root", root, "--policy", policy, "--out", tmp_path)
    assert status == 2 and "cannot write the plan" in err, err
    deep = write(tmp_path, "deep.toml", "a = " + "[" * 100000)
    status, out, err = cli("plan", "--root", root, "--policy", deep)
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not (root / STATE / "journal").exists() or not os.listdir(root / STATE / "journal")
