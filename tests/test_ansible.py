"""The Ansible module, run by a real ansible-core (pip) on localhost against a
copy of a real capture: check mode reports the change and its diff and writes
nothing; apply changes the values, a second run is ok, revert restores them."""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, tree_digest, write

COLLECTION = REPO / "packaging" / "ansible"
POLICY = """
[policy]
name = "ansible-test"
[sysctl]
"kernel.numa_balancing" = { value = 0, why = "SGA pages ping-pong between nodes" }
"""


def _ansible_playbook():
    here = Path(sys.executable).parent / "ansible-playbook"
    found = str(here) if here.exists() else shutil.which("ansible-playbook")
    if not found:
        pytest.skip("ansible-core is not installed (pip install -r requirements-test.txt)")
    return found


@pytest.fixture
def play(tmp_path):
    """play(tasks, *flags) -> {task name: localhost result} from ansible's JSON callback."""
    playbook_cmd = _ansible_playbook()
    collections = tmp_path / "collections"
    (collections / "ansible_collections" / "numatune").mkdir(parents=True)
    os.symlink(COLLECTION, collections / "ansible_collections" / "numatune" / "numatune")
    inventory = write(tmp_path, "hosts", "localhost ansible_connection=local ansible_python_interpreter=%s\n"
                      % sys.executable)

    def run(tasks, *flags):
        # ansible-core has no JSON stdout callback (that is ansible.posix): the last
        # task saves every registered result instead, also in check mode.
        names = [t["register"] for t in tasks]
        save = {"name": "save results", "check_mode": False, "ansible.builtin.copy": {
            "dest": str(tmp_path / "results.json"),
            "content": "{{ {%s} | to_json }}" % ", ".join("'%s': %s" % (n, n) for n in names)}}
        book = [{"hosts": "localhost", "gather_facts": False,
                 "environment": {"PYTHONPATH": str(REPO)}, "tasks": tasks + [save]}]
        path = write(tmp_path, "play.yml", json.dumps(book))  # JSON is YAML
        env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_NOCOLOR="1",
                   ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-local"), ANSIBLE_HOME=str(tmp_path / "ansible-home"),
                   ANSIBLE_REMOTE_TEMP=str(tmp_path / "ansible-remote"), LC_ALL="C.UTF-8")
        proc = subprocess.run([playbook_cmd, "-i", str(inventory), str(path)] + list(flags),
                              capture_output=True, text=True, env=env, cwd=str(tmp_path))
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        run.output = proc.stdout
        return json.loads((tmp_path / "results.json").read_text())
    run.collections = collections
    return run


def _task(name, **args):
    return {"name": name, "numatune.numatune.numatune": args, "register": name}


@pytest.fixture
def host(capture, tmp_path):
    root = capture("16amd64-4n4c-cgroup-distance-merge")
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    return root, write(tmp_path, "policy.toml", POLICY)


def test_check_mode_reports_the_change_and_its_diff_and_writes_nothing(play, host, tmp_path):
    root, policy = host
    before = tree_digest(root, ignore=())
    args = dict(policy=[str(policy)], root=str(root))
    bad = write(tmp_path, "bad.toml", "[kernal]\n")
    got = play([_task("apply", state="applied", **args), _task("check", state="checked", **args),
                dict(_task("bad", state="applied", policy=[str(bad)], root=str(root)), ignore_errors=True)],
               "--check", "--diff")
    assert tree_digest(root, ignore=()) == before
    apply = got["apply"]
    assert apply["changed"] is True and "txid" not in apply
    assert "kernel.numa_balancing = 1" in apply["diff"]["before"]
    assert "kernel.numa_balancing = 0" in apply["diff"]["after"]
    assert {c["id"] for c in apply["plan"]["changes"]} == {"sysctl.live:kernel.numa_balancing",
                                                          "sysctl.persist:kernel.numa_balancing"}
    # The default callback shows that diff to the person running --check --diff.
    assert "+++ after: numatune policy" in play.output and "kernel.numa_balancing = 0" in play.output
    check = got["check"]
    assert check["changed"] is False and check["status"] == 2 and check["status_text"] == "CRITICAL"
    # A bad policy fails the task with numatune's one-line message and hint.
    assert got["bad"]["failed"] is True
    assert "unknown key 'kernal'" in got["bad"]["msg"] and "did you mean 'kernel'" in got["bad"]["msg"]


def test_apply_changes_values_then_ok_then_revert_restores(play, host):
    root, policy = host
    before = tree_digest(root)
    args = dict(policy=[str(policy)], root=str(root))
    slurp = {"name": "live", "register": "live",
             "ansible.builtin.slurp": {"src": str(root / "proc/sys/kernel/numa_balancing")}}
    got = play([_task("first", state="applied", **args), slurp,
                _task("second", state="applied", **args),
                _task("compliance", state="checked", **args),
                dict(_task("revert_preview", state="reverted", root=str(root)), check_mode=True),
                _task("revert", state="reverted", root=str(root)),
                _task("revert_again", state="reverted", root=str(root))], "--diff")
    first = got["first"]
    assert first["changed"] is True and first["txid"] and first["status"] == 0
    assert base64.b64decode(got["live"]["content"]) == b"0\n"
    assert got["second"]["changed"] is False and not got["second"]["plan"]["changes"]
    assert got["compliance"]["status"] == 0 and got["compliance"]["counts"]["compliant"] >= 2
    assert got["revert_preview"]["changed"] is True and got["revert_preview"]["txid"] == first["txid"]
    assert "kernel.numa_balancing = 1" in got["revert_preview"]["diff"]["after"]
    assert got["revert"]["changed"] is True and got["revert"]["restored"]
    assert got["revert_again"]["changed"] is False
    assert tree_digest(root) == before


def test_info_module_reports_and_checked_is_deprecated(play, host):
    root, policy = host
    before = tree_digest(root, ignore=())
    args = dict(policy=[str(policy)], root=str(root))
    got = play([{"name": "info", "numatune.numatune.numatune_info": args, "register": "info"},
                _task("old", state="checked", **args)], "--diff")
    assert tree_digest(root, ignore=()) == before
    info = got["info"]
    assert info["changed"] is False and info["status"] == 2 and info["status_text"] == "CRITICAL"
    assert any(r["id"] == "sysctl.live:kernel.numa_balancing" for r in info["results"])
    assert "kernel.numa_balancing = 0" in info["diff"]["after"]
    # state=checked keeps working, with a deprecation warning that names the new module.
    assert got["old"]["status"] == 2 and got["old"]["results"] == info["results"]
    assert any("numatune_info" in d["msg"] for d in got["old"].get("deprecations", []))


def _documented_returns(module):
    import yaml
    text = (COLLECTION / "plugins" / "modules" / ("%s.py" % module)).read_text()
    return set(yaml.safe_load(text.split('RETURN = r"""', 1)[1].split('"""', 1)[0]))


# Keys Ansible itself adds to every result.
STANDARD = {"changed", "diff", "msg", "warnings", "deprecations", "invocation", "failed", "skipped_reason"}


def test_every_returned_key_is_documented(play, host):
    root, policy = host
    args = dict(policy=[str(policy)], root=str(root))
    got = play([_task("apply", state="applied", **args), _task("check", state="checked", **args),
                _task("revert", state="reverted", root=str(root)),
                {"name": "info", "numatune.numatune.numatune_info": args, "register": "info"}], "--diff")
    documented = _documented_returns("numatune")
    for name in ("apply", "check", "revert"):
        assert set(got[name]) - STANDARD <= documented, (name, set(got[name]) - STANDARD - documented)
    assert set(got["info"]) - STANDARD <= _documented_returns("numatune_info")


def test_a_different_numatune_on_the_host_fails_clearly(play, host, tmp_path):
    root, policy = host
    other = write(tmp_path, "other/numatune/__init__.py", '__version__ = "9.9.0"\n').parent.parent
    task = {"name": "info", "numatune.numatune.numatune_info": dict(root=str(root)), "register": "info",
            "ignore_errors": True, "environment": {"PYTHONPATH": str(other)}}
    got = play([task])
    info = got["info"]
    assert info["failed"] is True
    assert info["msg"] == ("numatune 9.9.0 is installed on this host, but this collection is for numatune 0.1.0")
    assert (info["host_version"], info["collection_version"]) == ("9.9.0", "0.1.0")


def test_collection_version_follows_numatune():
    import re
    import yaml
    from numatune import __version__
    galaxy = yaml.safe_load((COLLECTION / "galaxy.yml").read_text())
    host = (COLLECTION / "plugins" / "module_utils" / "numatune_host.py").read_text()
    assert galaxy["version"] == __version__
    assert re.search(r'^COLLECTION_VERSION = "%s"$' % re.escape(__version__), host, re.M)


def test_module_documentation_is_valid_for_ansible_doc(play):
    doc = Path(_ansible_playbook()).with_name("ansible-doc")
    if not doc.exists():
        pytest.skip("ansible-doc is not beside ansible-playbook")
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(play.collections), LC_ALL="C.UTF-8")
    proc = subprocess.run([str(doc), "--json", "-t", "module", "numatune.numatune.numatune"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    options = json.loads(proc.stdout)["numatune.numatune.numatune"]["doc"]["options"]
    assert options["state"]["choices"] == ["checked", "applied", "reverted"]
    assert set(options) == {"policy", "state", "root", "only", "skip", "txid", "force"}
    proc = subprocess.run([str(doc), "--json", "-t", "module", "numatune.numatune.numatune_info"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)["numatune.numatune.numatune_info"]["doc"]
    assert set(info["options"]) == {"policy", "root", "only", "skip"}
    assert info["attributes"]["check_mode"]["support"] == "full"


def test_fleet_playbook_writes_one_report_of_the_fleet(tmp_path):
    """playbooks/fleet-report.yml on four hosts (local connections to roots: two critical, a warning, and one
    that cannot be checked): one Markdown report on the controller, hosts by status, rules by host count."""
    playbook_cmd = _ansible_playbook()
    collections = tmp_path / "collections"
    (collections / "ansible_collections" / "numatune").mkdir(parents=True)
    os.symlink(COLLECTION, collections / "ansible_collections" / "numatune" / "numatune")
    cases = REPO / "tests" / "cases" / "sysctl"
    hosts = {"db-crit": cases / "conf-symlink", "db-crit2": cases / "conf-symlink",
             "db-warn": cases / "persisted-by-another-file", "db-gone": tmp_path / "no-such-root"}
    lines = ["[oracle_db]"]
    for name, case in hosts.items():
        lines.append("%s ansible_connection=local ansible_python_interpreter=%s numatune_root=%s"
                     % (name, sys.executable, case / "root"))
    policy = json.dumps({"numatune_policy": [str(cases / "conf-symlink" / "policy.toml")]})
    inventory = write(tmp_path, "hosts", "\n".join(lines) + "\n")
    report = tmp_path / "fleet.md"
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-local"), ANSIBLE_HOME=str(tmp_path / "ansible-home"),
               ANSIBLE_REMOTE_TEMP=str(tmp_path / "ansible-remote"), LC_ALL="C.UTF-8", PYTHONPATH=str(REPO))
    proc = subprocess.run([playbook_cmd, "-i", str(inventory), str(COLLECTION / "playbooks" / "fleet-report.yml"),
                           "-e", "numatune_become=false", "-e", "numatune_fleet_report=%s" % report, "-e", policy],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    text = report.read_text()
    assert "4 hosts checked." in text
    for status, count in (("CRITICAL", 2), ("WARNING", 1), ("UNKNOWN", 1), ("OK", 0)):
        assert "| %s | %d |" % (status, count) in text, text
    assert re.search(r"^\| db-gone \| UNKNOWN \| - \| - \| .*no such directory.* \|$", text, re.M), text
    # The critical hosts' rules drift on both of them, the warning's on one; most hosts first.
    rules = re.findall(r"^\| ([a-z.-]+) \| (\d+) \|$", text[text.index("## Rules"):], re.M)
    assert ("sysctl.live", "2") in rules and rules[-1] == ("sysctl.not-captured", "1"), text


def test_ansible_galaxy_builds_the_collection(tmp_path):
    """`ansible-galaxy collection build`: the artifact a Galaxy or Automation Hub takes, with the modules,
    module_utils and both playbooks (the fleet report's template too)."""
    import tarfile
    galaxy = Path(_ansible_playbook()).with_name("ansible-galaxy")
    if not galaxy.exists():
        pytest.skip("ansible-galaxy is not beside ansible-playbook")
    env = dict(os.environ, ANSIBLE_HOME=str(tmp_path / "ansible-home"), LC_ALL="C.UTF-8")
    proc = subprocess.run([str(galaxy), "collection", "build", str(COLLECTION), "--output-path", str(tmp_path)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from numatune import __version__
    with tarfile.open(tmp_path / ("numatune-numatune-%s.tar.gz" % __version__)) as tar:
        names = set(tar.getnames())
    assert {"MANIFEST.json", "plugins/modules/numatune.py", "plugins/modules/numatune_info.py",
            "plugins/module_utils/numatune_host.py", "playbooks/fleet-report.yml",
            "playbooks/templates/fleet-report.md.j2"} <= names, names
