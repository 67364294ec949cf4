"""The RPM, built for real with Debian's rpmbuild (--nodeps: its database is
empty), installed into a scratch root, and the installed numatune run from
there; the systemd units checked by systemd-analyze; the generated bash
completion and man page in step with the parser and working in bash and man."""
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from conftest import CAPTURES, REPO, write

SPEC = REPO / "packaging" / "numatune.spec"
UNITS = REPO / "packaging" / "systemd"


def _version():
    text = (REPO / "pyproject.toml").read_text()
    return re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def _sources():
    """The files of this checkout as they are now (tracked and new, not ignored)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=str(REPO),
                         capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout: %s" % out.stderr.strip())
    # Links too: the sysfs-style case roots under tests/cases link to directories.
    return [f for f in out.stdout.splitlines() if (REPO / f).is_file() or (REPO / f).is_symlink()]


def _build_rpms(top, python, check_tests="tests/test_check_report.py -k nagios_line"):
    """Build the binary RPMs under ``top`` with ``python``: {name: path}, and rpmbuild's output."""
    version = _version()
    (top / "SOURCES").mkdir(parents=True)
    # Laid out as `git archive --prefix=numatune-VERSION/` writes it, with this checkout's uncommitted files.
    with tarfile.open(top / "SOURCES" / ("numatune-%s.tar.gz" % version), "w:gz") as tar:
        for name in _sources():
            tar.add(str(REPO / name), "numatune-%s/%s" % (version, name))
    defines = {
        "_topdir": str(top),
        # The interpreter has pip, setuptools, wheel and pytest.
        "__python3": python,
        # %check runs the suite on a RHEL build; here a small part keeps this test quick.
        "numatune_check_tests": check_tests,
        # Debian's dependency generator needs python3-packaging; RHEL's works.
        "__pythondist_requires": "%{nil}", "__pythondist_provides": "%{nil}",
    }
    argv = ["rpmbuild", "-bb", "--nodeps"]
    for key, value in defines.items():
        argv += ["--define", "%s %s" % (key, value)]
    proc = subprocess.run(argv + [str(SPEC)], capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"^\S*\s*\d+ passed", log, re.M), "%check ran no test"
    built = {p.name.rsplit("-", 2)[0]: p for p in (top / "RPMS" / "noarch").glob("*.rpm")}
    assert set(built) == {"numatune", "numatune-tui"}
    return built, log


@pytest.fixture(scope="module")
def rpms(tmp_path_factory):
    """Build the binary RPMs once, with this interpreter (setuptools >= 77: from pyproject.toml)."""
    if not shutil.which("rpmbuild"):
        pytest.skip("rpmbuild is not installed (apt-get install rpm)")
    import setuptools
    assert int(setuptools.__version__.split(".")[0]) >= 77, "requirements-test.txt asks for setuptools>=77"
    built, _ = _build_rpms(tmp_path_factory.mktemp("rpmbuild"), sys.executable)
    return built


def test_rpm_builds_with_rhel9_setuptools(tmp_path, rpms):
    """RHEL 9 ships setuptools 53.0.0, which cannot read pyproject.toml's [project]: the spec builds from
    packaging/legacy/setup.cfg there. A venv pinned to 53.0.0 stands in for RHEL 9's python3."""
    venv = tmp_path / "rhel9-python"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    proc = subprocess.run([python, "-m", "pip", "install", "-q", "setuptools==53.0.0", "wheel", "pytest",
                           "hypothesis"], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("cannot install setuptools 53.0.0 here: %s" % proc.stderr.strip().splitlines()[-1:])
    assert subprocess.run([python, "-c", "import setuptools; print(setuptools.__version__)"],
                          capture_output=True, text=True).stdout.strip() == "53.0.0"
    built, log = _build_rpms(tmp_path / "top", python)
    # Not UNKNOWN-0.0.0: the wheel has the real name, version and metadata.
    files = _rpm_query(built["numatune"], "[%{FILENAMES}\n]").split()
    assert any(f.endswith("/numatune-%s.dist-info/METADATA" % _version()) for f in files), files
    assert not any("UNKNOWN" in f for f in files)
    # The same files as the build from pyproject.toml.
    modern = _rpm_query(rpms["numatune"], "[%{FILENAMES}\n]").split()
    assert sorted(f for f in files if "dist-info" not in f) == sorted(f for f in modern if "dist-info" not in f)


def test_legacy_setup_cfg_follows_pyproject():
    proc = subprocess.run([sys.executable, str(REPO / "packaging" / "legacy" / "sync.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_source0_is_what_git_archive_writes(tmp_path):
    """docs/install.md's `git archive` command makes the tarball `rpmbuild -ta` takes: top directory
    numatune-VERSION/ with the spec, LICENSE and everything %install and %check use."""
    version = _version()
    assert "git archive --prefix=numatune-%s/ -o numatune-%s.tar.gz" % (version, version) in \
        (REPO / "docs" / "install.md").read_text()
    out = tmp_path / "src.tar.gz"
    proc = subprocess.run(["git", "archive", "--prefix=numatune-%s/" % version, "-o", str(out), "HEAD"],
                          cwd=str(REPO), capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("not a git checkout: %s" % proc.stderr.strip())
    with tarfile.open(out) as tar:
        names = set(tar.getnames())
    spec = SPEC.read_text()
    for needed in ["LICENSE", "README.md", "pyproject.toml", "packaging/numatune.spec",
                   "packaging/legacy/setup.cfg", "packaging/legacy/setup.py"] + \
            re.findall(r"^install .*?(packaging/\S+)", spec, re.M):
        assert "numatune-%s/%s" % (version, needed) in names, needed


def test_rpmbuild_ta_of_git_archive_in_a_clean_directory(tmp_path):
    """docs/install.md's two commands in an empty directory: `git archive` of HEAD, then `rpmbuild -ta` with the
    distribution's own python3 and pip (Debian's pip puts `--prefix /usr` under /usr/local: the spec must
    not care), %check included, on the real captures Source0 carries in tests/data.

    Debian's rpm has two differences a RHEL build has not: its database knows no Debian package, so the
    BuildRequires are not checked (--nodeps), and its python dependency generator needs a module Debian
    lacks (turned off). %check runs pytest with this interpreter (the build's has no pytest)."""
    system = "/usr/bin/python3"
    if not shutil.which("rpmbuild"):
        pytest.skip("rpmbuild is not installed (apt-get install rpm)")
    if subprocess.run([system, "-c", "import setuptools, wheel, pip"], capture_output=True).returncode:
        pytest.skip("%s has no pip, setuptools and wheel (apt-get install python3-pip python3-wheel)" % system)
    version = _version()
    tarball = tmp_path / ("numatune-%s.tar.gz" % version)
    proc = subprocess.run(["git", "archive", "--prefix=numatune-%s/" % version, "-o", str(tarball), "HEAD"],
                          cwd=str(REPO), capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("not a git checkout: %s" % proc.stderr.strip())
    top = tmp_path / "rpmbuild"
    defines = {"_topdir": str(top), "numatune_check_python": sys.executable,
               "numatune_check_tests": "tests/test_captures.py tests/test_check_report.py "
                                       "-k 'sparse_node or cpu_less or nagios_line'",
               "__pythondist_requires": "%{nil}", "__pythondist_provides": "%{nil}"}
    argv = ["rpmbuild", "-ta", "--nodeps"]
    for key, value in defines.items():
        argv += ["--define", "%s %s" % (key, value)]
    proc = subprocess.run(argv + [tarball.name], cwd=str(tmp_path), capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    assert re.search(r"^\S*\s*\d+ passed", log, re.M), "%check ran no test"
    assert "/usr/local" not in _rpm_query(next((top / "RPMS" / "noarch").glob("numatune-%s-*.rpm" % version)),
                                          "[%{FILENAMES}\n]")
    built = {p.name.rsplit("-", 2)[0] for p in (top / "RPMS" / "noarch").glob("*.rpm")}
    assert built == {"numatune", "numatune-tui"} and list((top / "SRPMS").glob("*.src.rpm"))


def test_spec_buildrequires_every_runtime_dependency():
    """A clean build root (mock) has only what BuildRequires names: %check imports the dependencies."""
    spec = SPEC.read_text()
    build = set(re.findall(r"^BuildRequires:\s+python%\{python3_pkgversion\}-(\S+)", spec, re.M))
    runtime = set(re.findall(r"^Requires:\s+python%\{python3_pkgversion\}-(\S+)", spec, re.M))
    assert runtime <= build, runtime - build
    assert {"pytest", "hypothesis", "nagiosplugin"} <= build


def test_rpmlint_finds_no_errors(rpms, tmp_path):
    if not shutil.which("rpmlint"):
        pytest.skip("rpmlint is not installed (apt-get install rpmlint)")
    # Apache-2.0 is SPDX (Fedora's rpmlint config knows it; Debian's default list predates SPDX).
    config = write(tmp_path, "licenses.toml", 'ValidLicenses = ["Apache-2.0"]\n')
    proc = subprocess.run(["rpmlint", "-c", str(config), "-r", str(REPO / "packaging" / "numatune.rpmlintrc"),
                           str(SPEC), str(rpms["numatune"]), str(rpms["numatune-tui"])],
                          capture_output=True, text=True)
    errors = [line for line in proc.stdout.splitlines() if ": E: " in line]
    assert not errors, proc.stdout


def _rpm_query(rpm, fmt):
    return subprocess.run(["rpm", "-qp", "--qf", fmt, str(rpm)], capture_output=True, text=True,
                          check=True).stdout


def test_every_subpackage_is_packaged():
    """setuptools' explicit `packages` list: a subpackage missing there installs a
    numatune that fails on import (the RPM and `pip install .` alike)."""
    text = (REPO / "pyproject.toml").read_text()
    listed = set(re.findall(r'"(numatune[\w.]*)"', text[text.index("packages = "):]))
    for init in (REPO / "numatune").rglob("__init__.py"):
        name = ".".join(init.parent.relative_to(REPO).parts)
        if "__pycache__" not in name:
            assert name in listed, "add %r to packages in pyproject.toml" % name


def test_spec_version_follows_pyproject():
    assert re.search(r"^Version:\s+(\S+)$", SPEC.read_text(), re.M).group(1) == _version()


def test_rpm_files_config_and_requires(rpms):
    files = dict(line.rsplit(" ", 1) for line in
                 _rpm_query(rpms["numatune"], "[%{FILENAMES} %{FILEFLAGS:fflags}\n]").splitlines())
    for path in ("/usr/bin/numatune", "/usr/lib/systemd/system/numatune-check.service",
                 "/usr/lib/systemd/system/numatune-boot.service",
                 "/usr/lib/systemd/system/numatune-check.timer", "/usr/share/numatune/policies",
                 "/usr/share/bash-completion/completions/numatune", "/usr/share/man/man8/numatune.8",
                 "/var/lib/numatune", "/etc/numatune"):
        assert any(f == path or f.startswith(path + ".") for f in files), path
    assert any(f.endswith("/site-packages/numatune/report/prometheus.py") for f in files)
    assert not any("numatune_tui" in f for f in files)  # servers need not install Textual
    # %config(noreplace): "c" and "n"; an admin's edits survive an upgrade.
    for conf in ("/etc/numatune/policy.toml", "/etc/sysconfig/numatune-check"):
        assert set(files[conf]) >= {"c", "n"}, (conf, files[conf])
    assert _rpm_query(rpms["numatune"], "%{ARCH}") == "noarch"
    tui = _rpm_query(rpms["numatune-tui"], "[%{FILENAMES}\n]").split()
    assert any(f.endswith("/numatune_tui/app.py") for f in tui)
    # pyproject's dependencies, decided once: Requires (not Recommends), as the generated python3dist() say.
    main_requires = _rpm_query(rpms["numatune"], "[%{REQUIRENAME}\n]").split()
    assert {"python3-pyudev", "python3-pyroute2", "python3-prometheus_client"} <= set(main_requires)
    assert not _rpm_query(rpms["numatune"], "[%{RECOMMENDNAME}\n]").strip()
    license_files = _rpm_query(rpms["numatune"], "[%{FILENAMES} %{FILEFLAGS:fflags}\n]")
    assert re.search(r"/LICENSE l$", license_files, re.M), license_files  # %license
    assert _rpm_query(rpms["numatune"], "%{URL} %{LICENSE}").split() == [
        "https://github.com/numatune/numatune", "Apache-2.0"]
    requires = _rpm_query(rpms["numatune-tui"], "[%{REQUIRENAME} %{REQUIREVERSION}\n]")
    assert "python3-textual" in requires and re.search(r"^numatune \S+-1", requires, re.M)
    state = _rpm_query(rpms["numatune"], "[%{FILENAMES} %{FILEMODES:perms}\n]")
    assert "/var/lib/numatune drwx------" in state


@pytest.fixture(scope="module")
def installed(rpms, tmp_path_factory):
    root = tmp_path_factory.mktemp("scratch-root")
    subprocess.run(["rpm", "--root", str(root), "--initdb"], check=True)
    # --noscripts: the scratch root has no /bin/sh or systemctl for %post.
    proc = subprocess.run(["rpm", "-i", "--root", str(root), "--nodeps", "--noscripts", str(rpms["numatune"])],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return root


def _run_installed(root, *args):
    site = next(root.glob("usr/lib/python3*/site-packages"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=str(site), NO_COLOR="1")
    # The installed script, with this interpreter (its #! names the host's python3).
    return subprocess.run([sys.executable, str(root / "usr/bin/numatune")] + [str(a) for a in args],
                          capture_output=True, text=True, env=env, cwd=str(root))


@pytest.mark.skipif(not CAPTURES, reason="no real captures in tests/data")
def test_installed_numatune_checks_a_capture(installed, capture):
    assert (installed / "usr/bin/numatune").read_text().splitlines()[0] == "#!/usr/bin/python3 -s"
    where = subprocess.run([sys.executable, "-c", "import numatune; print(numatune.__file__)"],
                           capture_output=True, text=True, cwd=str(installed),
                           env=dict(PYTHONPATH=str(next(installed.glob("usr/lib/python3*/site-packages")))))
    assert where.stdout.startswith(str(installed)), where
    policies = os.path.realpath(installed / "usr/share/numatune/policies")
    assert policies.startswith(str(installed)) and os.path.exists(os.path.join(policies, "oracle-numa.toml"))

    root = capture("16amd64-4n4c-cgroup-distance-merge")
    write(root, "/proc/sys/kernel/numa_balancing", "1\n")
    proc = _run_installed(installed, "check", "--root", root, "--format", "json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == doc["status"] == 2, proc.stderr
    assert doc["policy_name"] == "oracle-numa"  # the shipped default, found through the installed package
    assert any(r["id"] == "sysctl.live:kernel.numa_balancing" for r in doc["results"])
    proc = _run_installed(installed, "plan", "--list-policies")
    assert "oracle-numa" in proc.stdout.split()


def test_units_verify(installed, tmp_path):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    units = []
    for name in ("numatune-check.service", "numatune-check.timer", "numatune-boot.service"):
        unit = installed / "usr/lib/systemd/system" / name
        assert unit.read_bytes() == (UNITS / name).read_bytes()
        # The host has no /usr/bin/numatune: point ExecStart at the installed one,
        # so verify also checks that the command exists and is executable.
        text = unit.read_text().replace("/usr/bin/numatune", str(installed / "usr/bin/numatune"))
        units.append(write(tmp_path, name, text))
    proc = subprocess.run(["systemd-analyze", "verify", "--man=no"] + [str(u) for u in units],
                          capture_output=True, text=True)
    problems = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    if proc.returncode != 0 and any("Failed to" in p and "manager" in p.lower() for p in problems):
        pytest.skip("systemd-analyze cannot run here: %s" % problems[0])
    assert proc.returncode == 0 and not problems, problems
    timer = (UNITS / "numatune-check.timer").read_text()
    assert re.search(r"^OnCalendar=daily$", timer, re.M) and "WantedBy=timers.target" in timer
    service = (UNITS / "numatune-check.service").read_text()
    assert re.search(r"^ExecStart=/usr/bin/numatune check --format prometheus --out \S+\.prom", service, re.M)
    assert re.search(r"^SuccessExitStatus=1 2$", service, re.M)
    # node_exporter's directory is written in, never taken over (a StateDirectory= chowns it and resets its
    # mode at every start); no mkdir before the start; a hung check ends.
    assert not re.search(r"^StateDirectory=", service, re.M)
    assert re.search(r"^ReadWritePaths=-/var/lib/node_exporter/textfile_collector$", service, re.M)
    assert "ExecStartPre=" not in service and re.search(r"^TimeoutStartSec=\S+", service, re.M)
    assert (installed / "usr/lib/tmpfiles.d/numatune.conf").read_bytes() == (UNITS / "numatune.tmpfiles").read_bytes()


def test_tmpfiles_creates_the_textfile_directory_and_leaves_node_exporters_alone(tmp_path):
    """systemd-tmpfiles (no systemd as PID 1 needed with --root) creates the directory where it is missing and
    keeps the mode and owner of one node_exporter's package made."""
    if not shutil.which("systemd-tmpfiles"):
        pytest.skip("systemd-tmpfiles is not installed")
    conf = tmp_path / "usr/lib/tmpfiles.d/numatune.conf"
    conf.parent.mkdir(parents=True)
    shutil.copy(UNITS / "numatune.tmpfiles", conf)
    directory = tmp_path / "var/lib/node_exporter/textfile_collector"

    def create():
        proc = subprocess.run(["systemd-tmpfiles", "--root", str(tmp_path), "--create"], capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
    create()
    assert directory.is_dir() and directory.stat().st_mode & 0o7777 == 0o755
    os.chmod(directory, 0o2775)
    if os.geteuid() == 0:
        os.chown(directory, 65534, 65534)
    before = directory.stat()
    create()
    after = directory.stat()
    assert (after.st_mode, after.st_uid, after.st_gid) == (before.st_mode, before.st_uid, before.st_gid)


def test_check_service_sandbox_exposure_is_below_2(tmp_path):
    """The read-only check runs sandboxed: `systemd-analyze security` rates the unit file itself."""
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    unit = UNITS / "numatune-check.service"
    proc = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", str(unit)],
                          capture_output=True, text=True)
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", proc.stdout + proc.stderr)
    if m is None and "--offline" in proc.stderr:
        pytest.skip("this systemd-analyze has no --offline: %s" % proc.stderr.strip())
    assert m, proc.stdout[-2000:] + proc.stderr
    assert float(m.group(1)) < 2.0, proc.stdout  # 2.9 before issue 27
    service = unit.read_text()
    for line in ("ProtectSystem=strict", "ProtectKernelModules=yes", "ProtectControlGroups=yes",
                 "RestrictNamespaces=yes", "SystemCallFilter=@system-service", "IPAddressDeny=any",
                 "PrivateMounts=yes", "SystemCallFilter=~@privileged @resources"):
        assert re.search("^%s$" % re.escape(line), service, re.M), line
    assert re.search(r"^CapabilityBoundingSet=", service, re.M)


def test_timer_enable_is_documented():
    """The package does not enable the timer (no preset): docs/install.md says how."""
    assert "systemctl enable --now numatune-check.timer" in (REPO / "docs" / "install.md").read_text()


def test_completion_and_man_page_follow_the_parser(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "packaging" / "cli_docs.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, "regenerate with: python3 packaging/cli_docs.py (%s)" % proc.stdout.strip()


def _complete(line):
    """COMPREPLY for the command line typed so far (the cursor at its end)."""
    words = line.split() + ([""] if line.endswith(" ") else [])
    script = ("source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _numatune; printf '%%s\\n' \"${COMPREPLY[@]}\""
              % (REPO / "packaging/completion/numatune.bash", " ".join("'%s'" % w for w in words), len(words) - 1))
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.split()


def test_bash_completes_commands_flags_and_values():
    if not shutil.which("bash"):
        pytest.skip("no bash")
    assert {"plan", "apply", "check", "revert"} <= set(_complete("numatune "))
    assert _complete("numatune check --format ") == ["text", "json", "junit", "prometheus", "nagios"]
    assert "--out" in _complete("numatune check --")
    assert "oracle-numa" in _complete("numatune plan --policy ")
    assert _complete("numatune plan --only me") == ["memory"]


def test_man_page_renders_without_warnings():
    if not shutil.which("groff"):
        pytest.skip("groff is not installed")
    page = REPO / "packaging/man/numatune.8"
    proc = subprocess.run(["groff", "-ww", "-man", "-Tutf8", str(page)], capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    text = re.sub(r".\x08", "", proc.stdout)
    assert "EXIT STATUS" in text and "prometheus" in text and "--out FILE" in text.replace("‐", "-")


def test_boot_unit_runs_early_and_before_the_database():
    """numatune-boot (issue #24): after local file systems and systemd-sysctl, before Oracle's units."""
    unit = (UNITS / "numatune-boot.service").read_text()
    assert re.search(r"^Type=oneshot$", unit, re.M) and re.search(r"^ExecStart=/usr/bin/numatune boot$", unit, re.M)
    before = re.search(r"^Before=(.*)$", unit, re.M).group(1).split()
    assert {"dbora.service", "oracle-ohasd.service", "ohasd.service"} <= set(before)
    assert set(re.search(r"^After=(.*)$", unit, re.M).group(1).split()) >= {"local-fs.target",
                                                                           "systemd-sysctl.service"}
    assert "WantedBy=multi-user.target" in unit


def test_sysv_boot_script_for_rhel6(tmp_path):
    script = REPO / "packaging" / "sysv" / "numatune-boot"
    text = script.read_text()
    assert os.access(str(script), os.X_OK)
    assert re.search(r"^# chkconfig: 2345 05 95$", text, re.M) and "/usr/bin/numatune boot" in text
    for sh in ("dash", "sh"):
        if shutil.which(sh):
            assert subprocess.run([sh, "-n", str(script)]).returncode == 0
    # Without a boot file it does nothing and succeeds (the unit's ConditionPathExists).
    if shutil.which("rpmspec"):
        el6 = subprocess.run(["rpmspec", "-P", "--define", "rhel 6", str(SPEC)], capture_output=True, text=True)
        assert re.search(r"^install .*packaging/sysv/numatune-boot .*/numatune-boot$", el6.stdout, re.M), el6.stderr
        assert "/sbin/chkconfig --add numatune-boot" in el6.stdout
        assert "numatune-boot.service" not in el6.stdout.split("%files")[1]


def test_the_oracle_os_drop_in_verifies_and_lifts_only_what_bequeath_needs(tmp_path):
    """connect = "os" starts the setuid oracle binary inside the check unit: the shipped drop-in
    (packaging/systemd/numatune-check-oracle-os.conf) loads with the unit under `systemd-analyze verify`
    and turns off no_new_privs and the system call filter; the rest of the sandbox stays."""
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    units = tmp_path / "units"
    unit = (UNITS / "numatune-check.service").read_text().replace("/usr/bin/numatune", sys.executable)
    write(units, "numatune-check.service", unit)
    drop_in = (UNITS / "numatune-check-oracle-os.conf").read_text()
    write(units, "numatune-check.service.d/oracle-os.conf", drop_in)
    env = dict(os.environ, SYSTEMD_UNIT_PATH="%s:" % units)
    proc = subprocess.run(["systemd-analyze", "verify", "--man=no", "numatune-check.service"], capture_output=True,
                          text=True, env=env)
    problems = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    if proc.returncode != 0 and any("Failed to" in p and "manager" in p.lower() for p in problems):
        pytest.skip("systemd-analyze cannot run here: %s" % problems[0])
    assert proc.returncode == 0 and not problems, problems
    proc = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", "numatune-check.service"],
                          capture_output=True, text=True, env=env)
    if "--offline" in proc.stderr:
        pytest.skip("this systemd-analyze has no --offline: %s" % proc.stderr.strip())
    lifted = {m.group(1) for m in re.finditer(r"^✗ (\S+?)=", proc.stdout, re.M)}
    assert "NoNewPrivileges" in lifted, proc.stdout  # the drop-in is read with the unit
    # What the unit sets and the drop-in leaves alone is still set (no private /dev, kernel, modules...).
    for kept in ("PrivateDevices", "ProtectKernelModules", "ProtectKernelTunables", "RestrictNamespaces"):
        assert kept not in lifted, (kept, proc.stdout)
    assert re.search(r"^NoNewPrivileges=no$", drop_in, re.M) and re.search(r"^SystemCallFilter=$", drop_in, re.M)
    assert re.search(r"^ReadWritePaths=-/\S+$", drop_in, re.M)
