"""A NUMA-only sysctl (kernel.numa_balancing) on a host that shows one node
today: its drift costs nothing only where the next boot has one node too.
A host booted with numa=off shows one node whatever it has, and the policy
that removes numa=off brings the others back at the next boot (issue #35):
what the running host has and that boot would lose is a warning there."""
import json
import shutil
from pathlib import Path

import pytest

from conftest import write

CASE = Path(__file__).parent / "cases" / "boot" / "cmdline-grub2-legacy" / "root"
KEY = "sysctl.persist:kernel.numa_balancing"


def _numa_off_host(tmp_path, sockets=2):
    """Oracle Linux 7 booted with numa=off (one node in sysfs), balancing off live, nothing in sysctl.d."""
    root = tmp_path / "root"
    shutil.copytree(CASE, root, symlinks=True)
    write(root, "/proc/sys/kernel/numa_balancing", "0\n")
    if sockets == 1:
        for path in root.glob("sys/devices/system/cpu/cpu*/topology/physical_package_id"):
            path.write_text("0\n")
    return root


def _check(cli, root, policy, *extra):
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json", *extra)
    return status, {r["id"]: r for r in json.loads(out)["results"]}


@pytest.mark.parametrize("sockets", [2, 1])
def test_numa_off_removed_by_the_policy_makes_an_unpersisted_balancing_a_warning(tmp_path, cli, sockets):
    """Before #35: `check --only sysctl` OK (exit 0), the missing sysctl.d line an INFO."""
    root = _numa_off_host(tmp_path, sockets)
    status, results = _check(cli, root, "oracle-numa", "--only", "sysctl")
    assert status == 1, results
    assert results[KEY]["severity"] == "warning"
    assert "the next boot would not be" in results[KEY]["message"]
    # Persisted, it is OK.
    assert cli("apply", "--yes", "--root", root, "--policy", "oracle-numa", "--only", "sysctl",
               "--confirm-within", "0")[0] == 0
    status, results = _check(cli, root, "oracle-numa", "--only", "sysctl")
    assert status == 0 and results[KEY]["state"] == "compliant", results


def test_several_sockets_shown_as_one_node_warn_without_numa_off(tmp_path, cli):
    """One node in sysfs over two sockets (firmware interleaving, node interleave on in the BIOS): the
    next boot may bring the nodes back; the unpersisted value is not info."""
    root = _numa_off_host(tmp_path)
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz-3.10.0-1160.el7.x86_64 ro quiet\n")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"kernel.numa_balancing" = 0\n')
    status, results = _check(cli, root, policy)
    assert results[KEY]["severity"] == "warning" and status == 1, results


def test_one_socket_one_node_without_numa_off_stays_info(tmp_path, cli):
    root = _numa_off_host(tmp_path, sockets=1)
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz-3.10.0-1160.el7.x86_64 ro quiet\n")
    policy = write(tmp_path, "p.toml", '[sysctl]\n"kernel.numa_balancing" = 0\n')
    status, results = _check(cli, root, policy)
    assert results[KEY]["severity"] == "info" and status == 0, results
