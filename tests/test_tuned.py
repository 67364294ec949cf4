"""Conflicts with tuned, read from Debian's real tuned profiles
(/usr/lib/tuned, package tuned; no daemon) linked into a fixture root whose
/etc/tuned/active_profile names the profile."""
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import tree_digest, write
from numatune.families.tuned import conflicts as tc

TUNED = Path("/usr/lib/tuned")
pytestmark = pytest.mark.skipif(not (TUNED / "oracle" / "tuned.conf").exists() and
                                not (TUNED / "profiles" / "oracle" / "tuned.conf").exists(),
                                reason="Debian's tuned package is not installed (.ci/run installs it)")


def profile_file(name):
    for base in (TUNED / "profiles", TUNED):
        if (base / name / "tuned.conf").exists():
            return base / name / "tuned.conf"
    raise AssertionError(name)


def line_of(name, pattern):
    """Where the real profile file sets something: path:line, found, not assumed."""
    path = profile_file(name)
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if re.match(pattern, line.strip()):
            return "%s:%d" % (path, number), line.split("=", 1)[1].strip()
    raise AssertionError("%s not in %s" % (pattern, path))


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "root"
    (r / "usr/lib").mkdir(parents=True)
    # A copy, not a link: a link out of --root is not followed.
    shutil.copytree(TUNED, r / "usr/lib/tuned", symlinks=True)
    (r / "proc").mkdir()
    return r


def findings(cli, root, tmp_path, policy_text, *extra):
    if "[tuned]" not in policy_text:
        # The route of today's files: tuned's values win against them (the child profile route is
        # tests/test_tuned_route.py).
        policy_text = '[tuned]\npersist = "files"\n' + policy_text
    pol = write(tmp_path, "p.toml", policy_text)
    status, out, err = cli("plan", "--root", root, "--policy", pol, "--format", "json", *extra)
    assert status == 0, err
    plan = json.loads(out)
    return {f["id"]: f for f in plan["findings"] if f["id"].startswith("tuned.")}, plan


def test_oracle_profile_and_its_include_chain(root, cli, tmp_path):
    write(root, "/etc/tuned/active_profile", "oracle\n")
    swap_where, swap = line_of("oracle", r"^vm\.swappiness\s*=")
    gov_where, gov = line_of("throughput-performance", r"^governor\s*=")
    nb_where, nb = line_of("oracle", r"^kernel\.numa_balancing\s*=")
    policy = ('[sysctl]\n"vm.swappiness" = 1\n"kernel.numa_balancing" = %s\n"net.core.somaxconn" = 4096\n'
              '[cpu]\ngovernor = "powersave"\n' % nb)
    found, _ = findings(cli, root, tmp_path, policy)
    f = found["tuned.conflict:sysctl_vm.swappiness"]
    assert f["target"] == swap_where and "sets sysctl vm.swappiness = %s" % swap in f["message"]
    # No tuned-main.conf in the root: tuned's default re-applies sysctl.d after the profile.
    assert "the policy 1" in f["message"] and "sysctl.d wins" in f["message"] and f["severity"] == "info"
    assert "on by default since tuned 2.7" in f["message"]
    # governor comes from throughput-performance, which oracle includes.
    assert found["tuned.conflict:cpu_governor"]["target"] == gov_where
    assert gov.split("|")[0] in found["tuned.conflict:cpu_governor"]["message"]
    # Same value: no conflict. ">2048" only raises: 4096 is fine, 1024 is not.
    assert "tuned.conflict:sysctl_kernel.numa_balancing" not in found
    assert "tuned.conflict:sysctl_net.core.somaxconn" not in found
    found, _ = findings(cli, root, tmp_path, '[sysctl]\n"net.core.somaxconn" = 1024\n')
    assert "tuned.conflict:sysctl_net.core.somaxconn" in found


def test_network_latency_force_latency_thp_and_boot_args(root, cli, tmp_path):
    write(root, "/etc/tuned/active_profile", "network-latency\n")
    fl_where, fl = line_of("latency-performance", r"^force_latency\s*=")
    policy = ('[kernel]\ntransparent_hugepage = "madvise"\n[kernel.cmdline]\nabsent = ["skew_tick"]\n'
              '[cpu]\nmax_cstate = 6\n')
    found, _ = findings(cli, root, tmp_path, policy)
    assert found["tuned.conflict:C-states_(force_latency)"]["target"] == fl_where
    assert fl in found["tuned.conflict:C-states_(force_latency)"]["message"]
    assert "= never" in found["tuned.conflict:transparent_hugepage"]["message"]
    assert "skew_tick=1" in found["tuned.conflict:boot_argument_skew_tick"]["message"]
    # cstate.id_no_zero:1 is state 1: a policy of max_cstate = 1 agrees with it.
    found, _ = findings(cli, root, tmp_path, "[cpu]\nmax_cstate = 1\n")
    assert "tuned.conflict:C-states_(force_latency)" not in found


def test_cpu_partitioning_variables_file_expands_in_the_cmdline(root, cli, tmp_path):
    write(root, "/etc/tuned/active_profile", "cpu-partitioning\n")
    write(root, "/etc/tuned/cpu-partitioning-variables.conf", "isolated_cores=4-7\n")
    found, _ = findings(cli, root, tmp_path, '[kernel.cmdline]\npresent = ["nohz_full=2-3"]\n')
    f = found["tuned.conflict:boot_argument_nohz_full"]
    assert "nohz_full=4-7" in f["message"] and "nohz_full=2-3" in f["message"]


def test_etc_profile_wins_over_the_packaged_one_and_replace(root, cli, tmp_path):
    write(root, "/etc/tuned/active_profile", "oracle\n")
    write(root, "/etc/tuned/oracle/tuned.conf",
          "[main]\ninclude=throughput-performance\n[sysctl]\nreplace=1\nvm.dirty_ratio = 5\n")
    found, _ = findings(cli, root, tmp_path, '[sysctl]\n"vm.swappiness" = 1\n"vm.dirty_ratio" = 7\n')
    assert found["tuned.conflict:sysctl_vm.dirty_ratio"]["target"] == "/etc/tuned/oracle/tuned.conf:5"
    # replace=1 dropped throughput-performance's whole [sysctl], swappiness included.
    assert "tuned.conflict:sysctl_vm.swappiness" not in found


def test_policy_selects_a_profile_journaled_and_conflicts_follow_it(root, cli, tmp_path):
    write(root, "/etc/tuned/active_profile", "balanced\n")
    write(root, "/etc/tuned/profile_mode", "auto\n")
    policy = '[tuned]\nprofile = "latency-performance"\npersist = "files"\n[cpu]\nmax_cstate = 3\n'
    found, plan = findings(cli, root, tmp_path, policy)
    (change,) = [c for c in plan["changes"] if c["id"] == "tuned.profile"]
    assert (change["current"], change["desired"]) == ("balanced", "latency-performance")
    assert "tuned.conflict:C-states_(force_latency)" in found
    before = tree_digest(root)
    pol = write(tmp_path, "p.toml", policy)
    status, out, err = cli("apply", "--root", root, "--policy", pol, "--yes", "--only", "kernel")
    assert status == 0, err + out
    assert (root / "etc/tuned/active_profile").read_text() == "latency-performance\n"
    assert (root / "etc/tuned/profile_mode").read_text() == "manual\n"
    assert cli("revert", "--last", "--root", root)[0] == 0
    assert tree_digest(root) == before
    found, plan = findings(cli, root, tmp_path, '[tuned]\nprofile = "no-such-profile"\n')
    assert found["tuned.unknown-profile"]["severity"] == "critical"
    assert not [c for c in plan["changes"] if c["id"] == "tuned.profile"]


def test_numad_running_against_cpusets(root, cli, tmp_path):
    write(root, "/proc/812/comm", "numad\n")
    found, _ = findings(cli, root, tmp_path, '[[cpuset]]\nname = "oracle"\ncpus = "0"\nmems = "0"\n')
    assert "running (pid 812)" in found["tuned.numad"]["message"]


def test_include_cycle_and_missing_profile_are_safe():
    files = {"/etc/tuned/a/tuned.conf": "[main]\ninclude=b\n[sysctl]\nx.y=1\n",
             "/etc/tuned/b/tuned.conf": "[main]\ninclude=a,gone\n[sysctl]\nx.y=2\nx.z=3\n"}
    profile = tc.load_profile(files.get, ["a"])
    assert profile["missing"] == ["gone"]
    values = {(p, k): v for p, k, v, _ in tc.effective(profile)}
    assert values[("sysctl", "x.y")] == "1" and values[("sysctl", "x.z")] == "3"


MAIN_CONF = Path("/etc/tuned/tuned-main.conf")


@pytest.mark.skipif(not MAIN_CONF.exists(), reason="tuned's tuned-main.conf is not installed")
def test_the_real_tuned_main_conf_says_sysctl_d_wins(root, cli, tmp_path):
    """This VM's tuned-main.conf (Debian's tuned) ships reapply_sysctl = 1:
    the finding names its line, and the policy's sysctl.d value wins."""
    write(root, "/etc/tuned/active_profile", "oracle\n")
    write(root, "/etc/tuned/tuned-main.conf", MAIN_CONF.read_text())
    number = next(n for n, line in enumerate(MAIN_CONF.read_text().splitlines(), 1)
                  if line.startswith("reapply_sysctl"))
    found, _ = findings(cli, root, tmp_path, '[sysctl]\n"vm.swappiness" = 1\n')
    f = found["tuned.conflict:sysctl_vm.swappiness"]
    assert f["severity"] == "info"
    assert "reapply_sysctl = 1 in /etc/tuned/tuned-main.conf:%d" % number in f["message"]


@pytest.mark.parametrize("main, said", [
    ("reapply_sysctl = 0\n", "reapply_sysctl = 0 in /etc/tuned/tuned-main.conf:1"),
    ("reapply_sysctl = 1\nreapply_sysctl_exclude = net.*, vm.swap*\n",
     "vm.swappiness matches reapply_sysctl_exclude vm.swap*"),
])
def test_tuned_wins_where_it_does_not_write_sysctl_d_again(root, cli, tmp_path, main, said):
    write(root, "/etc/tuned/active_profile", "oracle\n")
    write(root, "/etc/tuned/tuned-main.conf", main)
    found, _ = findings(cli, root, tmp_path, '[sysctl]\n"vm.swappiness" = 1\n"vm.dirty_ratio" = 7\n')
    f = found["tuned.conflict:sysctl_vm.swappiness"]
    assert f["severity"] == "warning" and "so tuned wins" in f["message"] and said in f["message"]


def test_a_tuned_older_than_2_7_writes_no_sysctl_d_again(root, cli, tmp_path):
    # tuned's own version file, where RHEL's noarch package puts it.
    write(root, "/usr/lib/python2.7/site-packages/tuned/version.py",
          "TUNED_VERSION_MAJOR = 2\nTUNED_VERSION_MINOR = 4\nTUNED_VERSION_PATCH = 1\n")
    write(root, "/etc/tuned/active_profile", "oracle\n")
    found, _ = findings(cli, root, tmp_path, '[sysctl]\n"vm.swappiness" = 1\n')
    f = found["tuned.conflict:sysctl_vm.swappiness"]
    assert f["severity"] == "warning" and "tuned 2.4 re-applies no sysctl.d file" in f["message"]


def test_other_knobs_are_still_tuneds(root, cli, tmp_path):
    # reapply_sysctl re-applies sysctl files only: the governor stays tuned's.
    write(root, "/etc/tuned/active_profile", "oracle\n")
    found, _ = findings(cli, root, tmp_path, '[cpu]\ngovernor = "powersave"\n')
    f = found["tuned.conflict:cpu_governor"]
    assert f["severity"] == "warning" and "so tuned wins" in f["message"]
