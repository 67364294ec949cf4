"""The boot path of a host, replayed on the lab guest's second boot (test_lab_reboot.py).

The guest's PID 1 is a shell, not systemd (its / is the host's over 9p: a real systemd boot would start the
host's own units, its database servers and tuned among them), so this runs what a systemd + network-scripts
host runs at boot, in that order, and nothing else. It keeps only what the real boot (tests/lab/realboot: Debian's
GRUB, systemd, tuned, NetworkManager, multipathd) does not run: a slice's cpuset is proven there, so a slice is
not replayed here; sysctl.d, numatune-boot.service and RHEL's network-scripts are not exercised there:

1. systemd-sysctl.service: ``systemd-sysctl`` reads /etc/sysctl.d and the others;
   (udevd's coldplug, ``udevadm trigger --action=add`` + settle, already ran in guest-init, after the first
   boot's /etc was put back, as a host's udevd reads its rules at boot);
2. the units the first boot wrote that a boot target wants (``TARGET.wants/`` links, ``Wants=`` of a
   ``TARGET.d/*.conf`` drop-in), ``Before=sysinit.target`` ones first: a service runs its ExecStart lines (its
   ``ConditionPathExists=`` checked). A unit nothing wants is not started, as on a host;
3. the lab's hardware: the two NICs a bond's ifcfg names as slaves are veth pairs here, created now;
4. network.service (network-scripts' ``ifup`` of each ``ONBOOT=yes`` ifcfg file the first boot wrote): a bond
   master is created, its BONDING_OPTS written to /sys/class/net/BOND/bonding (mode first, while down), its MTU
   set, its slaves enslaved, and it is brought up.

Each step prints what it does; the exit status is the number of steps that failed.
Usage: python tests/lab/bootpath.py STATE_DIR   (STATE_DIR/etc.tar lists what the first boot wrote)
"""
import re
import shlex
import subprocess
import sys
import tarfile
from pathlib import Path

UNIT_DIRS = ("/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system")
# What a multi-user boot reaches, in the order it reaches it.
TARGETS = ("sysinit.target", "slices.target", "basic.target", "network.target", "multi-user.target",
           "default.target")
IFCFG = "etc/sysconfig/network-scripts/ifcfg-"
failed = 0


def say(text):
    print("bootpath: " + text, flush=True)


def run(argv):
    global failed
    say("$ " + " ".join(argv))
    proc = subprocess.run(argv, capture_output=True, text=True)
    for line in (proc.stdout + proc.stderr).splitlines():
        say("  " + line)
    if proc.returncode:
        failed += 1
        say("  -> exit %d" % proc.returncode)
    return proc.returncode


def write(path, value):
    global failed
    try:
        Path(path).write_text(value)
        say("%s = %s" % (path, value))
    except OSError as e:
        failed += 1
        say("%s = %s: FAILED: %s" % (path, value, e))


def unit_file(name):
    return next((Path(d) / name for d in UNIT_DIRS if (Path(d) / name).exists()), None)


def sections(text):
    """{section: {key: [values]}} of a unit file."""
    out, section = {}, None
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("[") and s.endswith("]"):
            section = out.setdefault(s[1:-1], {})
        elif "=" in s and section is not None:
            key, _, value = s.partition("=")
            section.setdefault(key.strip(), []).append(value.strip())
    return out


def wanted(written):
    """[(unit, target)] that the written files make a boot target want."""
    out = []
    for rel in written:
        path = Path("/" + rel)
        m = re.match(r"etc/systemd/system/([^/]+)\.(wants|d)/([^/]+)$", rel)
        if not m or m.group(1) not in TARGETS:
            continue
        if m.group(2) == "wants":
            out.append((m.group(3), m.group(1)))
        elif rel.endswith(".conf") and path.is_file():
            for value in sections(path.read_text()).get("Unit", {}).get("Wants", []):
                out += [(u, m.group(1)) for u in value.split()]
    return out


def start_service(name, unit):
    # systemd.unit(5): "!PATH" holds when PATH is absent; "|" marks a triggering condition: every plain one must
    # hold, and at least one of the triggering ones when there are any.
    conds = unit.get("Unit", {}).get("ConditionPathExists", [])
    holds = {c: Path(c.lstrip("|!")).exists() != ("!" in c[:2]) for c in conds}
    plain = [c for c in conds if not c.startswith("|")]
    trigger = [c for c in conds if c.startswith("|")]
    if not all(holds[c] for c in plain) or (trigger and not any(holds[c] for c in trigger)):
        say("%s: condition failed (%s): skipped, as systemd would" % (name, " ".join(conds)))
        return
    for line in unit.get("Service", {}).get("ExecStart", []):
        run(shlex.split(line.lstrip("-@+!:")))


def units(written):
    global failed
    todo = []
    for name, target in wanted(written):
        path = unit_file(name)
        if path is None:
            failed += 1
            say("%s (wanted by %s): no unit file" % (name, target))
            continue
        unit = sections(path.read_text())
        early = "sysinit.target" in " ".join(unit.get("Unit", {}).get("Before", []))
        todo.append((0 if early else 1 + TARGETS.index(target), name, unit, target, path))
    for _, name, unit, target, path in sorted(todo):
        say("start %s (%s, wanted by %s)" % (name, path, target))
        if name.endswith(".service"):
            start_service(name, unit)
        else:
            say("%s: not a kind this replay knows: not started" % name)


def ifcfg(rel):
    out = {}
    for line in Path("/" + rel).read_text().splitlines():
        m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if m:
            out[m.group(1)] = " ".join(shlex.split(m.group(2), comments=True))
    return out


def network(written):
    files = {rel[len(IFCFG):]: ifcfg(rel) for rel in written if rel.startswith(IFCFG)}
    masters = {n: c for n, c in files.items() if c.get("BONDING_MASTER") == "yes" or c.get("TYPE") == "Bond"}
    for name, conf in sorted(masters.items()):
        slaves = sorted(n for n, c in files.items() if c.get("MASTER") == name and c.get("SLAVE") == "yes")
        for slave in slaves:
            if not Path("/sys/class/net", slave).exists():
                say("hardware: %s is a veth pair here (its peer %sp up, as a switch port)" % (slave, slave))
                run(["ip", "link", "add", slave, "type", "veth", "peer", "name", slave + "p"])
                run(["ip", "link", "set", slave + "p", "up"])
        if conf.get("ONBOOT", "yes") != "yes":
            continue
        say("ifup %s (network-scripts: ifup-eth for a bond master)" % name)
        if not Path("/sys/class/net", name).exists():
            # (ifup-eth loads bonding and writes +NAME to bonding_masters; rtnetlink does both, without the
            # bond0 that loading the module alone creates)
            run(["ip", "link", "add", name, "type", "bond"])
        opts = dict(o.partition("=")[::2] for o in conf.get("BONDING_OPTS", "").split())
        for key in sorted(opts, key=lambda k: k != "mode"):
            write("/sys/class/net/%s/bonding/%s" % (name, key), opts[key])
        if conf.get("MTU"):
            run(["ip", "link", "set", "dev", name, "mtu", conf["MTU"]])
        run(["ip", "link", "set", "dev", name, "up"])
        for slave in slaves:
            run(["ip", "link", "set", "dev", slave, "down"])
            write("/sys/class/net/%s/bonding/slaves" % name, "+" + slave)
            run(["ip", "link", "set", "dev", slave, "up"])


def main(state):
    with tarfile.open(Path(state) / "etc.tar") as tar:
        written = sorted(m.name for m in tar.getmembers() if not m.isdir())
    say("the first boot wrote: " + " ".join(written))
    sysctl = next(p for p in ("/usr/lib/systemd/systemd-sysctl", "/lib/systemd/systemd-sysctl") if Path(p).exists())
    run([sysctl])
    units(written)
    network(written)
    say("done: %d step(s) failed" % failed)
    return min(failed, 100)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
