"""Every "persisted by" that `check` says on every real capture holds on
that root (issue #35): the file it names is there; numatune-boot's unit or
SysV script is there, enabled, and names a command in a system location
that is in the root. Each capture gets the policy `recommend` writes for
it plus a governor and THP (what the boot file and the replay file keep),
applied as found (no numatune installed: nothing may claim the boot path)
and with numatune installed as the RPM installs it on a systemd host."""
import json
import re
import shutil

import pytest
import tomlkit

from conftest import CAPTURES, REALDATA, install_numatune, write

SYSTEM_DIRS = ("/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/sbin", "/bin", "/sbin")
ROOTS = sorted(CAPTURES) + ["this-vm"]


def _root(name, capture, tmp_path):
    if name in CAPTURES:
        return capture(name)
    root = tmp_path / name
    shutil.copytree(REALDATA / name, root, symlinks=True)
    return root


def _exists(root, path):
    return (root / path.lstrip("/")).exists()


def _boot_path_problems(root, by):
    """What stops numatune-boot running at the next boot of ``root``: [] when nothing does."""
    problems = []
    if by.startswith("the SysV script numatune-boot"):
        script = root / "etc/rc.d/init.d/numatune-boot"
        if not script.exists():
            return ["no /etc/rc.d/init.d/numatune-boot"]
        if not list((root / "etc/rc.d/rc3.d").glob("S*numatune-boot")):
            problems.append("no rc3.d link")
        command = re.search(r"(/\S+/numatune) boot", script.read_text())
    else:
        units = [root / d / "numatune-boot.service" for d in ("etc/systemd/system", "usr/lib/systemd/system")]
        unit = next((u for u in units if u.exists()), None)
        if unit is None:
            return ["no numatune-boot.service"]
        wants = [root / "etc/systemd/system/multi-user.target.d/numatune-boot.conf",
                 root / "etc/systemd/system/multi-user.target.wants/numatune-boot.service"]
        if not any(w.exists() for w in wants):
            problems.append("numatune-boot.service not enabled")
        command = re.search(r"^ExecStart=(\S+) boot$", unit.read_text(), re.M)
    if command is None:
        return problems + ["no `numatune boot` command"]
    path = command.group(1)
    if path.rpartition("/")[0] not in SYSTEM_DIRS:
        problems.append("%s is not in a system location" % path)
    if not _exists(root, path):
        problems.append("%s is not in the root" % path)
    return problems


def _problems(root, results):
    out = []
    for r in results:
        by = r.get("persisted_by") or ""
        if r["state"] != "compliant" or not by:
            continue
        if "numatune-boot" in by:
            out += ["%s: %s" % (r["id"], p) for p in _boot_path_problems(root, by)]
        # Every file a route names is there (a sysctl.d file's line number dropped).
        for path in re.findall(r"(/[\w.@+/-]+)", by):
            if not _exists(root, path.rstrip(".")):
                out.append("%s: %s names %s, which is not in the root" % (r["id"], by, path))
    return out


def _policy(cli, root, tmp_path):
    """What `recommend` writes for the root, with a governor where it sets none."""
    policy = tmp_path / "policy.toml"
    status, out, err = cli("recommend", "--root", root, "--out", policy)
    assert status == 0, err
    doc = tomlkit.parse(policy.read_text())
    if "cpu" not in doc:
        doc["cpu"] = {"governor": "performance", "why": "what the boot path keeps where no boot argument does"}
    policy.write_text(tomlkit.dumps(doc))
    return policy


def _apply_and_check(cli, root, policy):
    status, out, err = cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")
    assert status in (0, 1), out + err
    status, out, err = cli("check", "--root", root, "--policy", policy, "--format", "json")
    results = json.loads(out)["results"]
    assert _problems(root, results) == []
    # What the boot path would keep, where nothing can run it, is not OK.
    lost = [r for r in results if r["id"] in ("thp.boot", "cpu.boot-replay") and r["state"] != "compliant"]
    assert all(r["severity"] in ("warning", "critical") for r in lost), lost
    return [r for r in results if r["state"] == "compliant" and "numatune-boot" in (r["persisted_by"] or "")]


@pytest.mark.parametrize("name", ROOTS)
def test_no_capture_is_said_to_keep_what_its_route_cannot(name, capture, cli, tmp_path):
    root = _root(name, capture, tmp_path)
    policy = _policy(cli, root, tmp_path)
    # As captured: no numatune command in the root, so nothing is kept by the boot path.
    assert _apply_and_check(cli, root, policy) == []
    # numatune installed as the RPM installs it, on a systemd host: the next apply adds the boot path.
    install_numatune(root)
    (root / "etc/systemd/system").mkdir(parents=True, exist_ok=True)
    _apply_and_check(cli, root, policy)


def test_the_boot_path_is_claimed_somewhere(capture, cli, tmp_path):
    """The test above checks claims: at least one capture makes one through numatune-boot."""
    root = _root("this-vm", capture, tmp_path)
    install_numatune(root)
    (root / "etc/systemd/system").mkdir(parents=True)
    policy = write(tmp_path, "p.toml", '[kernel]\ntransparent_hugepage = "never"\n')
    assert cli("apply", "--yes", "--root", root, "--policy", policy, "--confirm-within", "0")[0] == 0
    results = json.loads(cli("check", "--root", root, "--policy", policy, "--format", "json")[1])["results"]
    (thp,) = [r for r in results if r["id"] == "thp.boot"]
    assert thp["persisted_by"] == "numatune-boot.service (/etc/numatune/boot.conf)"
    assert _problems(root, results) == []
