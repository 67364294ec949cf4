"""`numatune facts` says one true thing about the boot path (issue #37): a host
whose boot unit only re-plans live settings from the replay file is not "none"."""
from numatune.families.bootunit.unit import facts_lines


def _facts(values=None, replay=None, unit="/etc/systemd/system/numatune-boot.service", init="systemd"):
    return {"bootunit": {"values": values or {}, "unit": unit, "wants": None, "init": init, "sysv_script": False,
                         "old_unit": False, "replay": replay or {}}}


REPLAY = {"cpu": {"keys": ["cpu.governor"], "policy": {}}}


def test_replay_only_is_a_boot_path_not_none():
    lines = facts_lines(_facts(replay=REPLAY))
    text = "\n".join(lines)
    assert "none" not in text, text
    assert lines[0].startswith("boot path: numatune-boot.service"), text
    assert "  re-planned at each boot from /etc/numatune/boot-replay.json: cpu.governor" in lines


def test_nothing_kept_is_none_naming_both_files():
    lines = facts_lines(_facts(unit=None))
    assert lines[0].startswith("boot path: none") and all(len(line) <= 80 for line in lines)
    assert "boot.conf" in lines[1] and "boot-replay.json" in lines[1]


def test_a_unit_not_installed_runs_nothing():
    lines = facts_lines(_facts(values={"/sys/x": "1"}, replay=REPLAY, unit=None))
    assert "not installed" in lines[0] and "nothing runs" in lines[0], lines
    assert any("1 value(s)" in line and "/etc/numatune/boot.conf" in line for line in lines[1:]), lines
