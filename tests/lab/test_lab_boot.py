"""Boot persistence on the guest: the files apply writes (sysctl.d, udev rules) set the kernel by themselves when
the boot-time tools run them, after the live values were put back to what a fresh boot would have."""
import re
from pathlib import Path

import pytest

from labkit import (guest_only, load_array, numatune, plan_json, policy_file, read, sh, unload_array,
                    write)

pytestmark = guest_only
BLOCK = Path("/sys/block")
SYSCTL = {"vm.stat_interval": Path("/proc/sys/vm/stat_interval"),
          "kernel.numa_balancing": Path("/proc/sys/kernel/numa_balancing")}
SYSTEMD_SYSCTL = next(p for p in ("/usr/lib/systemd/systemd-sysctl", "/lib/systemd/systemd-sysctl")
                      if Path(p).exists())


@pytest.fixture
def array():
    yield load_array()
    unload_array()


def kernel(paths):
    out = {k: read(p) for k, p in SYSCTL.items()}
    for name in paths:
        out[name] = (read(BLOCK / name / "queue/nr_requests"), read(BLOCK / name / "queue/read_ahead_kb"))
    return out


def test_sysctl_d_and_udev_rules_set_the_kernel_at_boot(tmp_path, array):
    """systemd-sysctl and a udev coldplug (add) alone bring back numatune's sysctls and queue settings."""
    first = kernel(array)
    stat = "7" if first["vm.stat_interval"] != "7" else "8"
    bal = "0" if first["kernel.numa_balancing"] != "0" else "1"
    policy = policy_file(tmp_path, '[sysctl]\n"vm.stat_interval" = %s\n"kernel.numa_balancing" = %s\n\n'
                         '[[block]]\nmatch = { vendor = "3PARdata", model = "VV" }\nnr_requests = 40\n'
                         'read_ahead_kb = 256\n' % (stat, bal))
    status, out, err = numatune("apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    try:
        want = dict({"vm.stat_interval": stat, "kernel.numa_balancing": bal},
                    **{name: ("40", "256") for name in array})
        assert kernel(array) == want
        # What a fresh boot starts from: the kernel's own values, numatune's files on disk.
        for key, path in SYSCTL.items():
            write(path, first[key])
        for name in array:
            write(BLOCK / name / "queue/nr_requests", first[name][0])
            write(BLOCK / name / "queue/read_ahead_kb", first[name][1])
        assert kernel(array) == first
        assert re.search(r"^vm.stat_interval = %s$" % stat, Path("/etc/sysctl.d/90-numatune.conf").read_text(), re.M)
        sh(SYSTEMD_SYSCTL)
        sh("udevadm trigger --action=add --subsystem-match=block && udevadm settle --timeout=60")
        assert kernel(array) == want
        left = plan_json(policy)["changes"]
        assert left == [], [c["id"] for c in left]
    finally:
        rstatus, rout, rerr = numatune("revert", "--last")
    assert rstatus == 0, rout + rerr
    assert kernel(array) == first
    assert not Path("/etc/udev/rules.d/90-numatune.rules").exists()
