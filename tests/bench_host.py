"""A small host made by bench/make_host.py with the bench policy, for the tests of what apply and
verify read (test_verify_*, test_cpu_reread, test_storage_reread_written): built once per module,
copied for each test, and planned as the engine plans it."""
import shutil
import sys

from conftest import REPO, install_numatune
from numatune import engine
from numatune.policy.stack import load as load_policy
from numatune.root import Root

sys.path.insert(0, str(REPO / "bench"))
import bench_policy  # noqa: E402
from make_host import make_host  # noqa: E402


def build(tmp_path_factory, name, **sizes):
    """(root, policy) of a host of ``sizes`` (make_host's arguments) with numatune installed."""
    work = tmp_path_factory.mktemp(name)
    root = work / "root"
    make_host(str(root), **sizes)
    install_numatune(root)
    policy = work / "policy.toml"
    bench_policy.build(str(policy))
    return root, policy


def copied(built, tmp_path):
    """A copy of a built host for one test to write into, with its policy."""
    root = tmp_path / "root"
    shutil.copytree(built[0], root, symlinks=True)
    return root, built[1]


def planned(root_dir, policy_path):
    """(root, policy, plan, facts) as apply makes them."""
    root = Root(str(root_dir))
    policy = load_policy([str(policy_path)], root)
    plan, facts = engine.make_plan(root, policy, strict=False)
    return root, policy, plan, facts
