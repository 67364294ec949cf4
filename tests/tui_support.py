"""Shared by the test_tui_* modules: a copied real capture to plan and apply
on, a big fake plan made of real model objects, and the app under a pilot."""
import asyncio
import sys
from pathlib import Path

import pytest

from conftest import REPO, write

pytest.importorskip("textual", reason="the TUI tests need Textual: pip install -r requirements-test.txt")
try:
    import numatune_tui  # noqa: F401
except ImportError:
    # A source checkout that was not pip-installed: the package lives in tui/.
    sys.path.insert(0, str(REPO / "tui"))

from numatune.model import AREAS, Change, Finding, Plan, Write  # noqa: E402

CAPTURE = "16amd64-4n4c-cgroup-distance-merge"  # small (982 files): quick to copy
POLICY = """
[policy]
name = "tui-test"
extends = ["oracle-hugepages"]

[hugepages]
size = "2M"
count = 64
"""


@pytest.fixture
def review_root(capture, tmp_path):
    """(root, policy file): a copied capture whose plan has kernel and
    memory changes (live and persistent) and two findings."""
    root = capture(CAPTURE)
    # No capture carries these; a RHEL host would.
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    write(root, "/proc/sys/vm/zone_reclaim_mode", "1\n")
    policy = write(tmp_path, "policy.toml", POLICY)
    return root, policy


def make_app(root, policy_path=None, plan_source=None):
    from numatune import engine
    from numatune.root import Root
    from numatune_tui.app import ReviewApp
    r = Root(str(root))
    policy = engine.load_policy([str(policy_path)] if policy_path else [], r)
    return ReviewApp(r, policy, plan_source=plan_source)


def fake_plan(n, hostname="db01"):
    """A plan with ``n`` changes over every area (real Change and Write
    objects, as the families make them) and one finding per severity."""
    changes = []
    scopes = ("live", "persistent", "boot")
    risks = ("low", "low", "medium", "high")
    for i in range(n):
        area = AREAS[i % len(AREAS)]
        scope = scopes[i % 3]
        key = "kernel.fake_knob_%04d" % i
        if scope == "persistent":
            writes = [Write(kind="file", path="/etc/sysctl.d/90-numatune.conf", editor="sysctl_set",
                            args={"key": key, "value": str(i % 7)})]
        else:
            writes = [Write(kind="value", path="/proc/sys/kernel/fake_knob_%04d" % i, value=str(i % 7))]
        changes.append(Change(
            id="fake.%s:%s" % (scope, key), area=area, target=key, current=str((i + 1) % 7),
            desired=str(i % 7), scope=scope, action="set %s" % key, why="fake knob %d for the review screen" % i,
            reboot_required=scope == "boot", restart_required=area == "oracle", risk=risks[i % 4],
            rule="sysctl." + key, writes=writes))
    findings = [
        Finding(id="fake.crit", severity="critical", area="memory", message="HugePages pool too small for the SGA"),
        Finding(id="fake.warn", severity="warning", area="kernel", message="no bootloader configuration found"),
        Finding(id="fake.info", severity="info", area="kernel", message="THP is not available on this kernel"),
    ]
    order = {a: i for i, a in enumerate(AREAS)}
    changes.sort(key=lambda c: order[c.area])
    host = {"hostname": hostname, "kernel": "5.14.0", "distro": "Oracle Linux 9", "root": "/",
            "sockets": 8, "nodes": 8, "cpus": 448}
    return Plan(host=host, changes=changes, findings=findings)


def run(coro):
    return asyncio.run(coro)


async def settle(app, pilot):
    """Wait until every worker is done and the screen has caught up."""
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()
