"""Storage on the guest's kernel: scsi_debug LUNs that report as a 3PAR array (vendor 3PARdata, model VV),
two LUNs seen through two SCSI hosts (four sd paths, two WWNs), dm-multipath by multipathd, udevd running."""
import glob
import re
import subprocess
import time
from pathlib import Path

import pytest

from labkit import (cycle, guest_only, load_array, numatune, plan_json, policy_file, read, scsi_paths, sh,
                    unload_array, wait_for, write)

pytestmark = guest_only
BLOCK = Path("/sys/block")
RULES = Path("/etc/udev/rules.d/90-numatune.rules")
MPCONF = Path("/etc/multipath.conf")


paths = scsi_paths


@pytest.fixture(scope="module")
def array():
    """scsi_debug as a 3PAR array through two hosts; every path starts on scheduler none."""
    load_array()
    for name in paths():
        write(BLOCK / name / "queue/scheduler", "none")
    yield paths()
    unload_array()


def scheduler(dev):
    return re.search(r"\[(\S+)\]", read(dev / "queue/scheduler")).group(1)


def dev_state(name):
    dev = BLOCK / name
    disk = glob.glob(str(dev / "device/scsi_disk/*/cache_type"))
    return {"scheduler": scheduler(dev), "nr_requests": read(dev / "queue/nr_requests"),
            "nomerges": read(dev / "queue/nomerges"), "rotational": read(dev / "queue/rotational"),
            "read_ahead_kb": read(dev / "queue/read_ahead_kb"),
            "queue_depth": read(dev / "device/queue_depth"), "cache_type": read(disk[0]) if disk else None}


def state():
    return {name: dev_state(name) for name in paths()}, RULES.read_text() if RULES.exists() else None


ARRAY = '''
[[block]]
match = { vendor = "3PARdata", model = "VV", kind = "disk" }
scheduler = "mq-deadline"
nr_requests = 64
nomerges = 1
rotational = %s
queue_depth = 16
cache_type = "write through"
acknowledge_volatile_cache_risk = true
'''


def test_paths_by_vendor_model_get_every_queue_and_scsi_setting(tmp_path, array):
    """vendor/model selects the 4 paths: mq-deadline, nr_requests, nomerges, rotational, queue_depth, cache_type."""
    rot = "0" if dev_state("sda" if "sda" in array else next(iter(array)))["rotational"] == "1" else "1"
    policy = policy_file(tmp_path, ARRAY % rot)
    before, applied, _ = cycle(policy, state)
    want = {"scheduler": "mq-deadline", "nr_requests": "64", "nomerges": "1", "rotational": rot,
            "queue_depth": "16", "cache_type": "write through"}
    for name in array:
        assert {k: applied[0][name][k] for k in want} == want, name
        assert before[0][name]["scheduler"] == "none"
    assert applied[1] and 'ATTRS{vendor}=="3PARdata"' in applied[1]


def test_cache_type_without_acknowledgement_is_refused(tmp_path, array):
    """cache_type without acknowledge_volatile_cache_risk: exit 2 with one line, no device touched."""
    text = ARRAY.replace("acknowledge_volatile_cache_risk = true\n", "") % "0"
    policy = policy_file(tmp_path, text)
    before = state()
    status, out, err = numatune("apply", "--yes", "--policy", policy)
    assert status == 2
    assert "acknowledge_volatile_cache_risk" in err and err.count("\n") <= 2
    assert state() == before


def test_wwn_selects_only_that_luns_paths(tmp_path, array):
    """match.wwn = one LUN's WWN: both its paths (two hosts) get read_ahead_kb, the other LUN's paths do not."""
    wwids = sorted(set(array.values()))
    assert len(wwids) == 2
    lun = [n for n, w in array.items() if w == wwids[0]]
    assert len(lun) == 2
    policy = policy_file(tmp_path, '[[block]]\nmatch = { wwn = "%s" }\nread_ahead_kb = 2048\n' % wwids[0])
    before, applied, _ = cycle(policy, state)
    for name in array:
        assert applied[0][name]["read_ahead_kb"] == ("2048" if name in lun else before[0][name]["read_ahead_kb"])


PERSIST = '''
[[block]]
match = { vendor = "3PARdata", model = "VV" }
nr_requests = 48
read_ahead_kb = 512
queue_depth = 12
'''


def test_readded_path_gets_the_policy_from_the_udev_rules_alone(tmp_path, array):
    """delete a path and rescan its host: udevd gives the re-added disk the policy's values from 90-numatune.rules."""
    policy = policy_file(tmp_path, PERSIST)
    first = dev_state(sorted(array)[-1])
    assert (first["nr_requests"], first["read_ahead_kb"], first["queue_depth"]) != ("48", "512", "12")
    status, out, err = numatune("apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    try:
        victim = sorted(array)[-1]
        host = Path(glob.glob(str(BLOCK / victim / "device/scsi_device/*"))[0]).name.split(":")[0]
        write(BLOCK / victim / "device/delete", "1")
        assert wait_for(lambda: len(paths()) == 3, timeout=30)
        write("/sys/class/scsi_host/host%s/scan" % host, "- - -")
        assert wait_for(lambda: len(paths()) == 4, timeout=60)
        sh("udevadm settle --timeout=60")
        new = sorted(set(paths()) - (set(array) - {victim}))[0]
        print(sh("udevadm info /dev/%s" % new))
        got = dev_state(new)
        assert (got["nr_requests"], got["read_ahead_kb"], got["queue_depth"]) == ("48", "512", "12"), got
    finally:
        rstatus, rout, rerr = numatune("revert", "--last")
    assert rstatus == 0, rout + rerr


def maps():
    """dm-multipath maps: dm-N -> (name, table)."""
    out = {}
    for dev in sorted(BLOCK.glob("dm-*")):
        if read(dev / "dm/uuid").startswith("mpath-"):
            name = read(dev / "dm/name")
            out[dev.name] = (name, subprocess.run(["dmsetup", "table", name], capture_output=True,
                                                  text=True).stdout.strip())
    return out


def repeat_counts(table):
    """The per-path repeat count (rr_min_io_rq) in a multipath table: 'major:minor N ...'."""
    return set(re.findall(r" \d+:\d+ (\d+)", table))


@pytest.fixture
def multipathd(array):
    """multipathd over the array's paths with find_multipaths no; stopped and its maps flushed after."""
    old = MPCONF.read_text() if MPCONF.exists() else None
    MPCONF.write_text("defaults {\n\tfind_multipaths no\n\tuser_friendly_names yes\n}\n")
    sh("modprobe dm_multipath; modprobe dm_round_robin; modprobe dm_service_time; multipathd")
    assert wait_for(lambda: "pid" in sh("multipathd show daemon", check=False), timeout=30)
    sh("multipath -v2; udevadm settle --timeout=60", check=False)
    assert wait_for(lambda: len(maps()) == 2, timeout=60), sh("multipath -ll", check=False)
    yield maps()
    sh("multipathd shutdown", check=False)
    time.sleep(1)
    sh("multipath -F; udevadm settle --timeout=30", check=False)
    if old is None:
        MPCONF.unlink()
    else:
        MPCONF.write_text(old)


RR = '''
[[block]]
match = { vendor = "3PARdata", model = "VV", kind = "dm-multipath" }
multipath = { rr_min_io_rq = 7 }
'''
MAP_QUEUE = '''
[[block]]
match = { vendor = "3PARdata", model = "VV", kind = "dm-multipath" }
read_ahead_kb = 4096
nr_requests = 96
'''
BOTH = RR + "read_ahead_kb = 4096\n"


def queue_of(devs, attr):
    return {d: read(BLOCK / d / "queue" / attr) for d in devs}


def running_config():
    return sh("multipathd show config", check=False)


def test_multipathd_takes_rr_min_io_rq_from_the_generated_section(tmp_path, multipathd):
    """multipath = { rr_min_io_rq = 7 }: numatune's multipath.conf section is what multipathd runs with after apply."""
    policy = policy_file(tmp_path, RR)
    conf = MPCONF.read_text()
    assert "rr_min_io_rq 7" not in running_config()
    status, out, err = numatune("apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    try:
        assert re.search(r'vendor "3PARdata"\n\s*product "VV"\n\s*rr_min_io_rq 7\n', MPCONF.read_text())
        assert wait_for(lambda: "rr_min_io_rq 7" in running_config(), timeout=60)
        # The maps are reloaded with it; the 6.1 kernel's path selectors clamp a repeat count > 1 to 1
        # (request-based dm-multipath), so the table itself still says 1.
        print(sh("multipath -v3 2>&1 | grep -i minio", check=False), maps())
        assert len(maps()) == 2
        left = plan_json(policy)["changes"]
        assert left == [], [c["id"] for c in left]
    finally:
        rstatus, rout, rerr = numatune("revert", "--last")
    assert rstatus == 0, rout + rerr
    assert MPCONF.read_text() == conf


def test_revert_puts_multipathd_back_on_the_old_config(tmp_path, multipathd):
    """After revert, multipathd runs without numatune's rr_min_io_rq again (not only the file is restored)."""
    policy = policy_file(tmp_path, RR)
    status, out, err = numatune("apply", "--yes", "--policy", policy)
    assert status == 0, out + err
    assert wait_for(lambda: "rr_min_io_rq 7" in running_config(), timeout=60)
    rstatus, rout, rerr = numatune("revert", "--last")
    assert rstatus == 0, rout + rerr
    assert wait_for(lambda: "rr_min_io_rq 7" not in running_config(), timeout=20)


def test_maps_by_vendor_model_and_their_paths_get_queue_settings(tmp_path, multipathd):
    """A rule selecting the maps by their paths' vendor/model sets read_ahead_kb on both maps and all 4 paths."""
    devs = list(multipathd) + list(paths())
    policy = policy_file(tmp_path, MAP_QUEUE)

    def read_all():
        return queue_of(devs, "read_ahead_kb"), queue_of(paths(), "nr_requests")
    before, applied, _ = cycle(policy, read_all)
    assert applied[0] == {d: "4096" for d in devs}
    assert applied[1] == {d: "96" for d in paths()}


def test_map_by_wwn_selects_that_map_and_its_two_paths(tmp_path, multipathd):
    """match = { wwn, kind = "dm-multipath" }: that LUN's map and its two paths change, the other map does not."""
    wwid = sorted(set(paths().values()))[0]
    slaves = {d: sorted(p.name for p in (BLOCK / d / "slaves").iterdir()) for d in multipathd}
    mine = [d for d, names in slaves.items() if {read(BLOCK / n / "device/wwid") for n in names} == {wwid}]
    assert len(mine) == 1
    ours = mine + slaves[mine[0]]
    devs = list(multipathd) + list(paths())
    policy = policy_file(tmp_path, '[[block]]\nmatch = { wwn = "%s", kind = "dm-multipath" }\n'
                                   'read_ahead_kb = 3072\n' % wwid)
    before, applied, _ = cycle(policy, lambda: queue_of(devs, "read_ahead_kb"))
    assert len(ours) == 3
    assert applied == {d: ("3072" if d in ours else before[d]) for d in devs}


def test_map_queue_settings_survive_the_multipathd_reconfigure(tmp_path, multipathd):
    """read_ahead_kb on maps together with a multipath section: still set after numatune's own reconfigure."""
    devs = list(multipathd) + list(paths())
    policy = policy_file(tmp_path, BOTH)
    before, applied, _ = cycle(policy, lambda: (queue_of(devs, "read_ahead_kb"), MPCONF.read_text()))
    assert applied[0] == {d: "4096" for d in devs}


def test_revert_leaves_map_queues_as_they_were_across_its_own_reconfigure(tmp_path, multipathd):
    """A map's read_ahead_kb set by hand (not the reload's default) is back after apply and revert, though
    both reconfigure multipathd and each table reload resets it."""
    for dev in multipathd:
        write(BLOCK / dev / "queue/read_ahead_kb", "2048")
    devs = list(multipathd) + list(paths())
    policy = policy_file(tmp_path, BOTH)
    before, applied, _ = cycle(policy, lambda: (queue_of(devs, "read_ahead_kb"), running_config()))
    assert {d: before[0][d] for d in multipathd} == {d: "2048" for d in multipathd}
    assert applied[0] == {d: "4096" for d in devs} and "rr_min_io_rq 7" in applied[1]
