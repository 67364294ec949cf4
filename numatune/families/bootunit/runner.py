"""Whether anything will run `numatune boot` at the next boot of a root:
the unit or the SysV script, its enabling, and the command it names.
"persisted by numatune-boot" is said only where this finds no problem.

A command counts only in a system location (``SYSTEM_DIRS``): directories
on the root file system that packages (/usr/bin, the RPM's) and
administrators (/usr/local/bin, pip as root) install commands into, there at
every boot. A venv in a clone or a temporary directory is not one: it moves
or goes away, and the next boot silently loses the values. The command must
be in the root the unit is written to (apply --root DIR names DIR's command,
not the one running), and its Python must be 3.9 or later: RHEL/OL 6 and
7's (2.6, 2.7, 3.6) cannot run numatune, and those hosts are captured and
planned elsewhere."""
import os
import re
import sys

SYSTEM_DIRS = ("/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/sbin", "/bin", "/sbin")
COMMAND = "numatune"
MIN_PYTHON = (3, 9)
# RHEL/OL 6 and 7 kernels (UEK's .el7uek too), and any 2.6 kernel: a Python older than 3.9.
OLD_RELEASE = r"^2\.|\.el[67]"    # compiled (re's cache) at its one search of a run
OLD_DISTRO = ("rhel", "ol", "centos", "redhat")
INSTALL_HINT = ("install numatune as a system command: the numatune RPM (/usr/bin/numatune), or "
                "`python3 -m pip install numatune` as root with a Python >= 3.9 (/usr/local/bin/numatune); "
                "then apply again")


def this_numatune():
    """The command running now: the script beside this Python (/usr/bin/numatune
    from the RPM, .venv/bin/numatune), else None."""
    script = os.path.join(os.path.dirname(sys.executable), COMMAND)
    return script if os.path.isfile(script) else None


def old_release(release, distro=None):
    distro = distro or {}
    major = (distro.get("version") or "").split(".")[0]
    return bool(re.search(OLD_RELEASE, release or "")) or (distro.get("id") in OLD_DISTRO and major in ("6", "7"))


def _python_version(root, interpreter):
    """(major, minor) of a Python named by path, from its name or the name a
    link in the root resolves to; None when neither says."""
    for path in (interpreter, root.realpath(interpreter)):
        m = re.match(r"^python(\d)(?:\.(\d+))?$", os.path.basename(path))
        if m and m.group(2):
            return int(m.group(1)), int(m.group(2))
        if m and m.group(1) == "2":
            return 2, 7
    return None


def _interpreter(root, text):
    """The interpreter a script's #! line names (through env: looked up in
    the system locations of the root), or None for no #! line."""
    first = (text or "").split("\n", 1)[0]
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if words and os.path.basename(words[0]) == "env":
        name = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), "")
        found = [d + "/" + name for d in SYSTEM_DIRS if name and root.exists(d + "/" + name)]
        return found[0] if found else name
    return words[0] if words else ""


def command_problem(root, path, release, distro=None):
    """Why ``path`` cannot run `numatune boot` at the next boot of ``root``, or None."""
    if not path or os.path.dirname(path) not in SYSTEM_DIRS:
        return "%s is not in a system location (%s)" % (path or "no command", ", ".join(SYSTEM_DIRS[:2]) + ", ...")
    if not root.exists(path):
        return "%s is not installed in this root" % path
    interpreter = _interpreter(root, root.read_text(path))
    version = _python_version(root, interpreter) if interpreter else None
    if version is not None and version < MIN_PYTHON:
        return "%s runs %s, Python %d.%d: numatune needs Python %d.%d or later" % (
            path, interpreter, version[0], version[1], MIN_PYTHON[0], MIN_PYTHON[1])
    if version is None and old_release(release, distro):
        return ("%s: this release's Python (2.6, 2.7 or 3.6) cannot run numatune, which needs Python %d.%d or "
                "later; RHEL/OL 6 and 7 hosts are captured and planned elsewhere" % ((path,) + MIN_PYTHON))
    return None


def system_command(root, release, distro=None):
    """(the command a unit written into ``root`` names, None) or (None, why
    none can): the running numatune when it is a system command of the root,
    else the first system command there."""
    mine = this_numatune()
    candidates = ([mine] if mine and os.path.dirname(mine) in SYSTEM_DIRS else []) + \
        [d + "/" + COMMAND for d in SYSTEM_DIRS]
    problems = []
    for path in candidates:
        if not root.exists(path):
            continue
        problem = command_problem(root, path, release, distro)
        if problem is None:
            return path, None
        problems.append(problem)
    if problems:
        return None, problems[0]
    where = ("; this numatune runs from %s, which a boot cannot count on" % mine) if mine and mine not in \
        candidates[1:] else ""
    return None, "no numatune command in a system location (%s) in this root%s" % (
        ", ".join(SYSTEM_DIRS[:2]) + ", ...", where)


def exec_command(unit_text):
    """The program a unit's ExecStart= runs (its prefixes such as '-' dropped)."""
    m = re.search(r"^ExecStart=[-@:+!]*(\S+)", unit_text or "", re.M)
    return m.group(1) if m else None


def script_command(script_text):
    """The numatune command a SysV script runs as `... boot`."""
    m = re.search(r"(/\S*/%s)\s+boot\b" % COMMAND, script_text or "")
    return m.group(1) if m else None


def default_runlevel(root):
    """/etc/inittab's initdefault (RHEL 6 boots to 3 or 5), else 3."""
    m = re.search(r"^[^#:]*:(\d):initdefault:", root.read_text("/etc/inittab") or "", re.M)
    return int(m.group(1)) if m else 3


def sysv_linked(root, name, runlevel):
    """Whether rcN.d starts ``name`` (chkconfig's S<NN><name> link)."""
    return any(re.match(r"^S\d+%s$" % re.escape(name), entry) for entry in root.listdir("/etc/rc.d/rc%d.d" % runlevel))
