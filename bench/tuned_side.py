#!/usr/bin/env python3
"""`numatune check` against `tuned-adm verify` on the same three sysctls,
side by side on this machine's real kernel.

    python bench/tuned_side.py [--reps 7]

tuned-adm verify asks the tuned daemon over D-Bus, so the daemon runs for
the measurement only: a private D-Bus system bus (its own socket in a temp
dir), and a profile `numatune-bench` holding the three values the kernel has
now, so that starting tuned changes nothing. /etc/tuned's state files and
tuned-main.conf (with reapply_sysctl and dynamic tuning off while it runs:
neither may touch other values on a shared machine) are put back byte for
byte afterwards, the profile removed, and the three values checked unchanged.
Needs root, tuned and dbus-daemon; refuses when a tuned daemon is running.
Prints `check/verify = N.NN`; lines starting with '#' are the details.
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# What /usr/bin/numatune of the RPM runs (its shebang, then pip's console script).
INSTALLED = ["/usr/bin/python3", "-s", "-c", "import sys; from numatune.cli import main; sys.exit(main())"]
KEYS = ("vm.swappiness", "vm.dirty_ratio", "vm.dirty_background_ratio")
TUNED_DIR = "/etc/tuned"
PROFILE = "numatune-bench"
SAVED = ("active_profile", "profile_mode", "post_loaded_profile", "tuned-main.conf")
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""


def _live(key):
    with open("/proc/sys/" + key.replace(".", "/")) as f:
        return f.read().strip()


def unavailable():
    """Why the side-by-side cannot run here, or None."""
    missing = [t for t in ("tuned", "tuned-adm", "dbus-daemon") if not shutil.which(t)]
    if missing:
        return "%s not installed" % ", ".join(missing)
    if os.geteuid() != 0:
        return "tuned's daemon needs root"
    if subprocess.run(["pgrep", "-x", "tuned"], stdout=subprocess.DEVNULL).returncode == 0:
        return "a tuned daemon is already running (left alone)"
    if os.path.exists(os.path.join(TUNED_DIR, PROFILE)):
        return "%s/%s exists (another run?)" % (TUNED_DIR, PROFILE)
    return None


class _Restore:
    """Saves /etc/tuned's files; puts them back and removes the bench profile."""

    def __init__(self):
        self.saved = {name: _read(os.path.join(TUNED_DIR, name)) for name in SAVED}

    def __call__(self):
        for name, data in self.saved.items():
            path = os.path.join(TUNED_DIR, name)
            if data is None:
                if os.path.exists(path):
                    os.unlink(path)
            else:
                with open(path, "wb") as f:
                    f.write(data)
        shutil.rmtree(os.path.join(TUNED_DIR, PROFILE), ignore_errors=True)


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _wait_for(argv, env, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return True
        time.sleep(0.2)
    return False


def _time(argv, env, ok):
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit("bench: %s exited %d: %s" % (" ".join(argv[:3]), proc.returncode,
                                                      proc.stderr.decode(errors="replace").strip()[-200:]))
    return elapsed


def measure(numatune_argv, reps, env, also=None):
    """{"check": s, "verify": s} medians, or raises SystemExit with why not.
    ``also``: {name: another numatune argv} timed on the same check, round by round."""
    why = unavailable()
    if why:
        raise SystemExit("bench: check/verify skipped: " + why)
    values = {k: _live(k) for k in KEYS}
    work = tempfile.mkdtemp(prefix="numatune-tuned-")
    restore = _Restore()
    procs = []
    try:
        os.makedirs(os.path.join(TUNED_DIR, PROFILE))
        with open(os.path.join(TUNED_DIR, PROFILE, "tuned.conf"), "w") as f:
            f.write("[main]\nsummary=numatune bench: the values the kernel has\n\n[sysctl]\n"
                    + "".join("%s=%s\n" % kv for kv in values.items()))
        main_conf = (restore.saved["tuned-main.conf"] or b"").decode()
        lines = [line for line in main_conf.splitlines() if not line.split("=")[0].strip() in
                 ("reapply_sysctl", "dynamic_tuning")]
        with open(os.path.join(TUNED_DIR, "tuned-main.conf"), "w") as f:
            f.write("\n".join(lines + ["reapply_sysctl = 0", "dynamic_tuning = 0"]) + "\n")
        policy = os.path.join(work, "three.toml")
        with open(policy, "w") as f:
            f.write("[sysctl]\n" + "".join('"%s" = %s\n' % kv for kv in values.items()))
        bus = os.path.join(work, "bus")
        with open(bus + ".conf", "w") as f:
            f.write(BUS_CONFIG % bus)
        procs.append(subprocess.Popen(["dbus-daemon", "--config-file", bus + ".conf", "--nofork"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        env = dict(env, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + bus)
        if not _wait_for(["test", "-S", bus], env, 10):
            raise SystemExit("bench: the private D-Bus did not start")
        procs.append(subprocess.Popen(["tuned", "--profile", PROFILE, "--no-socket"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        if not _wait_for(["tuned-adm", "verify"], env, 60):
            raise SystemExit("bench: tuned did not answer `tuned-adm verify` within 60 s")
        runs = {"check": (numatune_argv + ["check", "--policy", policy], (0, 1, 2)),
                "verify": (["tuned-adm", "verify"], (0,))}
        runs.update((name, (argv + ["check", "--policy", policy], (0, 1, 2))) for name, argv in (also or {}).items())
        times = {name: [] for name in runs}
        for _ in range(reps):
            for name, (argv, ok) in runs.items():
                times[name].append(_time(argv, env, ok))
        return {name: statistics.median(t) for name, t in times.items()}, values
    finally:
        for proc in reversed(procs):
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        restore()
        shutil.rmtree(work, ignore_errors=True)
        changed = {k: (v, _live(k)) for k, v in values.items() if _live(k) != v}
        if changed:
            print("# WARNING: values changed during the tuned run: %s" % changed, file=sys.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args(argv)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Byte-compiled as an install is (a shell's PYTHONDONTWRITEBYTECODE=1 would compile every module at
    # every run of a changed tree), as bench/run.py runs it.
    env = dict(os.environ, PYTHONPATH=repo, NO_COLOR="1", PYTHONDONTWRITEBYTECODE="")
    # This interpreter (a development venv loads pip's editable-install finder, pathlib and all, at every
    # start), and numatune as the RPM runs it: the system's python3 -s, no venv, its .pyc files at hand.
    also = {"installed": INSTALLED} if os.path.exists(INSTALLED[0]) else {}
    t, values = measure([sys.executable, "-m", "numatune"], args.reps, env, also)
    print("# %s: numatune check %.1f ms, tuned-adm verify %.1f ms (tuned daemon on a private D-Bus), median of %d"
          % (", ".join("%s=%s" % kv for kv in values.items()), t["check"] * 1000, t["verify"] * 1000, args.reps))
    if "installed" in t:
        print("# as installed (%s): numatune check %.1f ms, check/verify %.2f"
              % (" ".join(INSTALLED[:2]), t["installed"] * 1000, t["installed"] / t["verify"]))
    print("check/verify = %.2f" % (t["check"] / t["verify"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
