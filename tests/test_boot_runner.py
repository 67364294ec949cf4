"""What runs `numatune boot` at the next boot (issue #35): "persisted by
numatune-boot" only when the unit or SysV script is there, runs at boot and
names a command in a system location of that root that the release's Python
can run; the unit ordered after tuned.service."""
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import install_numatune, write

REPO = Path(__file__).resolve().parent.parent
THP_CASE = REPO / "tests/cases/boot/thp-rhel6/root"
UNIT = "etc/systemd/system/numatune-boot.service"
WANTS = "etc/systemd/system/multi-user.target.d/numatune-boot.conf"
SYSV = "/etc/rc.d/init.d/numatune-boot"
def _thp_host(tmp_path, init="systemd", release=None):
    """The THP case's root (no bootloader file: the boot file keeps the mode)
    without its /usr/bin/numatune: "systemd" as it is; "sysv": a RHEL 6.5 kernel."""
    root = tmp_path / "root"
    shutil.copytree(THP_CASE, root, symlinks=True)
    shutil.rmtree(root / "usr", ignore_errors=True)
    if init == "systemd":
        (root / "etc/systemd/system").mkdir(parents=True)
    if release:
        write(root, "/proc/sys/kernel/osrelease", release + "\n")
    return root


def _policy(tmp_path):
    return write(tmp_path, "thp.toml", '[kernel]\ntransparent_hugepage = "never"\n')


def _apply(cli, root, policy):
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status in (0, 1), out + err
    return out + err


def _check(cli, root, policy):
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    return status, json.loads(out)


def _persisted(doc):
    return {r["id"]: r["persisted_by"] for r in doc["results"] if r["state"] == "compliant" and r["persisted_by"]}


def test_an_apply_without_a_system_command_enables_nothing_and_says_how_once(tmp_path, cli):
    """Before #35 the unit named the venv that ran apply (ExecStart=<venv>/bin/numatune boot) and check
    said "persisted by numatune-boot.service": move the clone and the value is lost at the next boot."""
    root = _thp_host(tmp_path)
    policy = _policy(tmp_path)
    said = " ".join(cli("plan", "--root", root, "--policy", policy)[1].split())
    assert said.count("install numatune as a system command") == 1, said
    assert "this numatune runs from " in said and "which a boot cannot count on" in said
    _apply(cli, root, policy)
    assert not (root / UNIT).exists() and not (root / WANTS).exists()
    assert not (root / "etc/numatune/boot.conf").exists()
    status, doc = _check(cli, root, policy)
    assert status == 1 and "thp.boot" not in _persisted(doc)
    by_id = {r["id"]: r for r in doc["results"]}
    assert by_id["thp.boot"]["severity"] == "warning"
    assert "not kept at boot" in by_id["thp.boot"]["message"]
    assert by_id["thp.live"]["state"] == "compliant"      # live only, and said so


@pytest.mark.parametrize("command", ["/usr/bin/numatune", "/usr/local/bin/numatune"])
def test_the_unit_names_the_system_command_of_the_root(tmp_path, cli, command):
    root = _thp_host(tmp_path)
    install_numatune(root, command)
    policy = _policy(tmp_path)
    _apply(cli, root, policy)
    unit = (root / UNIT).read_text()
    assert re.search(r"^ExecStart=%s boot$" % re.escape(command), unit, re.M), unit
    status, doc = _check(cli, root, policy)
    assert status == 0, doc
    assert _persisted(doc)["thp.boot"] == "numatune-boot.service (/etc/numatune/boot.conf)"


def test_a_unit_naming_a_command_the_root_lacks_is_not_a_route(tmp_path, cli):
    """A unit an older apply wrote from a venv: not "persisted"; the next apply writes it again naming the
    system command."""
    root = _thp_host(tmp_path)
    policy = _policy(tmp_path)
    write(root, "/etc/numatune/boot.conf", "/sys/kernel/mm/redhat_transparent_hugepage/enabled = never\n")
    write(root, "/" + UNIT, (REPO / "packaging/systemd/numatune-boot.service").read_text()
          .replace("/usr/bin/numatune", "/tmp/clone/.venv/bin/numatune"))
    write(root, "/" + WANTS, "[Unit]\nWants=numatune-boot.service\n")
    status, doc = _check(cli, root, policy)
    assert "thp.boot" not in _persisted(doc) and status != 0
    install_numatune(root)
    _apply(cli, root, policy)
    assert "ExecStart=/usr/bin/numatune boot" in (root / UNIT).read_text()
    assert _persisted(_check(cli, root, policy)[1])["thp.boot"].startswith("numatune-boot.service")


def _sysv_host(tmp_path, script=True, link=True, python=None):
    root = _thp_host(tmp_path, init="sysv", release="2.6.32-431.el6.x86_64")
    if script:
        write(root, SYSV, (REPO / "packaging/sysv/numatune-boot").read_text(), mode=0o755)
    if link:
        (root / "etc/rc.d/rc3.d").mkdir(parents=True)
        (root / "etc/rc.d/rc3.d/S05numatune-boot").symlink_to("../init.d/numatune-boot")
    if python:
        install_numatune(root, python=python)
    return root


@pytest.mark.parametrize("script,link,python,said", [
    (False, False, "/opt/python3.9/bin/python3.9", "/etc/rc.d/init.d/numatune-boot is missing"),
    (True, False, "/opt/python3.9/bin/python3.9", "no /etc/rc.d/rc3.d/S??numatune-boot"),
    (True, True, None, "/usr/bin/numatune is not installed"),
    (True, True, "/usr/bin/python -s", "Python (2.6, 2.7 or 3.6) cannot run numatune"),
    (True, True, "/usr/bin/python3.6", "Python 3.6"),
])
def test_rhel6_sysv_claims_no_route_it_cannot_honour(tmp_path, cli, script, link, python, said):
    """Before #35, RHEL 6.5: "ok transparent_hugepage = never at boot, persisted by the SysV script
    numatune-boot" beside "/etc/rc.d/init.d/numatune-boot is missing"; a script without its rc3.d link
    counted as running at boot; /usr/bin/numatune needs a Python RHEL 6 does not have."""
    root = _sysv_host(tmp_path, script, link, python)
    policy = _policy(tmp_path)
    _apply(cli, root, policy)
    status, doc = _check(cli, root, policy)
    assert "thp.boot" not in _persisted(doc)
    assert status == 1
    text = " ".join(r["message"] for r in doc["results"])
    assert said in text, text
    assert not (root / "etc/systemd").exists()


def test_rhel6_with_its_script_linked_and_a_python_39_command_is_persisted(tmp_path, cli):
    root = _sysv_host(tmp_path, python="/opt/python3.9/bin/python3.9")
    policy = _policy(tmp_path)
    plan = json.loads(cli("plan", "--root", root, "--policy", policy, "--format", "json")[1])
    (boot,) = [c for c in plan["changes"] if c["id"] == "thp.boot"]
    assert "SysV script numatune-boot" in boot["action"] and ".service" not in boot["action"]
    _apply(cli, root, policy)
    status, doc = _check(cli, root, policy)
    assert status == 0, doc
    assert _persisted(doc)["thp.boot"] == "the SysV script numatune-boot (/etc/numatune/boot.conf)"


def test_the_unit_runs_after_tuned_and_the_package_ships_what_apply_writes(tmp_path, cli):
    """tuned's profile sets the governor too: numatune's boot run comes after tuned.service when tuned
    runs (After= orders only units in the same boot). Before=sysinit.target would make a cycle with
    tuned.service (a normal service, itself after sysinit.target and basic.target)."""
    root = _thp_host(tmp_path)
    install_numatune(root)
    _apply(cli, root, _policy(tmp_path))
    written = (root / UNIT).read_text()
    assert written == (REPO / "packaging/systemd/numatune-boot.service").read_text()
    after = " ".join(re.findall(r"^After=(.*)$", written, re.M)).split()
    before = " ".join(re.findall(r"^Before=(.*)$", written, re.M)).split()
    assert "tuned.service" in after
    assert not {"sysinit.target", "basic.target"} & set(before)
