"""Facts of one instance, read under a Root: its files, its parameters as
Oracle would see them, the alert log's evidence, where its SGA sits, and
(live root with a connection only) what the running instance says."""
import os
import re

from numatune.facts import cgroups
from numatune.facts.procs import table
from numatune.families.oracle import alertlog, discovery, live, pfile, version

def home_of(spec, tab_entry):
    if tab_entry and tab_entry.get("home"):
        return tab_entry["home"]
    if spec.get("home"):
        return spec["home"].rstrip("/")
    path = spec.get("pfile") or ""
    if "/dbs/" in path:
        return path.rsplit("/dbs/", 1)[0]
    return None


def read(root, spec, index, sid, tab_entry):
    home = home_of(spec, tab_entry)
    inst = {"sid": sid, "home": home, "policy_index": index, "in_oratab": tab_entry is not None,
            "policy_pfile": spec.get("pfile"), "live": None, "live_error": None}
    found = discovery.param_file(root, sid, home) if home else {"kind": None, "path": None, "readable": False}
    if found["kind"] is None and home and tab_entry is not None:
        # RAC: oratab lists the database (orcl), this node runs orcl1 / orcl_1.
        local = discovery.rac_instance(root, sid, home)
        if local:
            inst.update(sid=local, database=sid)
            sid = local
            found = discovery.param_file(root, sid, home)
    if found["kind"] is None and spec.get("pfile") and root.exists(spec["pfile"]):
        found = {"kind": "pfile", "path": spec["pfile"], "via": None, "readable": True}
    inst["param_file"] = found
    entries = discovery.read_entries(root, found)
    inst["params"] = {k: e["value"] for k, e in pfile.effective(entries, sid).items()}
    # The other instances of a RAC database, from a shared pfile's "orcl2." lines.
    peers = sorted({e["sid"] for e in entries if e["sid"] not in (None, "*") and e["sid"].upper() != sid.upper()})
    inst["peers"] = {p: {k: e["value"] for k, e in pfile.effective(entries, p).items()} for p in peers}
    if spec.get("connect") and root.is_live:
        _read_live(inst, spec)
    alert = discovery.alert_log(root, sid, home, inst["params"]) if home or inst["params"] else None
    inst["alert_log"] = alert
    inst["evidence"] = alertlog.read(root, alert) if alert else None
    ev = inst["evidence"] or {}
    compatible = [(inst["params"]["compatible"], found.get("path") or "the parameter file")] \
        if inst["params"].get("compatible") else []
    if (ev.get("listed") or {}).get("compatible"):
        compatible.append((ev["listed"]["compatible"], "the alert log's last startup"))
    inst["version"] = version.read(root, home, ev.get("version"), compatible)
    maps = numa_maps(root, sid)
    inst["sga_nodes"] = None if maps is None else parse_numa_maps(maps)
    # The HugePages it holds per node while it runs: not "in use by others"
    # when its own pool is sized (numatune.families.oracle.pool.in_use_by_others).
    inst["huge_held"] = None if maps is None else parse_huge_held(maps)
    return inst


def _read_live(inst, spec):
    try:
        tgt = live.target(spec["connect"], inst["sid"], inst["home"])
        conn = live.connect(tgt)
        try:
            got = live.read(conn)
        finally:
            close = getattr(conn, "close", None)
            if close:
                close()
    except (live.ConnectError, OSError) as e:
        inst["live_error"] = str(e)
        return
    except Exception as e:  # a DB-API driver's own error classes; reported, never fatal
        inst["live_error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        return
    stored = {}
    for name, by_sid in got["spfile"].items():
        vals = by_sid.get(inst["sid"]) or by_sid.get("*")
        if vals:
            stored[name] = ",".join("'%s'" % v for v in vals)
    inst["live"] = {"memory": got["memory"], "spfile": stored, "instances": got["instances"],
                    "sgainfo": got["sgainfo"],
                    "uses_spfile": bool((got["memory"].get("spfile") or {}).get("value"))}
    if inst["live"]["uses_spfile"]:
        inst["params"] = stored


def parse_numa_maps(text):
    """{node: kB} of the huge-page shared memory mappings (the SGA) in a
    /proc/PID/numa_maps: lines with ``huge`` and ``N<node>=<pages>``."""
    out = {}
    for line in (text or "").splitlines():
        if " huge" not in line and "SYSV" not in line:
            continue
        m = re.search(r"kernelpagesize_kB=(\d+)", line)
        kb = int(m.group(1)) if m else 4
        for node, pages in re.findall(r"\bN(\d+)=(\d+)", line):
            out[node] = out.get(node, 0) + int(pages) * kb
    return out


def parse_huge_held(text):
    """{page kB: {node: pages}} of the HugePages mappings in a numa_maps."""
    out = {}
    for line in (text or "").splitlines():
        m = re.search(r"kernelpagesize_kB=(\d+)", line)
        if " huge" not in line or not m:
            continue
        nodes = out.setdefault(m.group(1), {})
        for node, pages in re.findall(r"\bN(\d+)=(\d+)", line):
            nodes[node] = nodes.get(node, 0) + int(pages)
    return out


def smon_pid(root, sid):
    want = "ora_smon_%s" % sid
    pids = table(root).by_comm([want]).get(want)
    return str(pids[0]) if pids else None


def numa_maps(root, sid):
    """The running instance's /proc/PID/numa_maps (its SMON's), None when it does not run."""
    pid = smon_pid(root, sid)
    if pid is None:
        return None
    return root.read_text("/proc/%s/numa_maps" % pid)


def sga_nodes(root, sid):
    maps = numa_maps(root, sid)
    return None if maps is None else parse_numa_maps(maps)


def read_cpusets(root):
    """{name: {"cpus": [...], "mems": [...], "path"}} of the host's cpusets,
    wherever the hierarchy is mounted (RHEL 6: /cgroup/cpuset)."""
    return cgroups.cpusets(root)


def read_memlock(root, user):
    """The oracle user's memlock (soft, hard) in kB as limits.conf and then
    limits.d/*.conf set it (later files win), None for unset, -1 unlimited."""
    files = ["/etc/security/limits.conf"] + root.glob("/etc/security/limits.d", "*.conf")
    got = {"soft": None, "hard": None}
    for path in files:
        for line in (root.read_text(path) or "").splitlines():
            f = line.split("#", 1)[0].split()
            if len(f) != 4 or f[2] != "memlock" or f[0] not in (user, "*", "@" + user, "@dba", "@oinstall"):
                continue
            v = -1 if f[3] in ("unlimited", "infinity") else int(f[3]) if f[3].isdigit() else None
            for kind in (("soft", "hard") if f[1] == "-" else (f[1],)):
                if kind in got:
                    got[kind] = v
    return got


def shm_limits(root):
    def num(path):
        v = root.read_value(path)
        return int(v) if v and v.isdigit() else None
    return {"shmmax": num("/proc/sys/kernel/shmmax"), "shmall": num("/proc/sys/kernel/shmall"),
            "page_size": os.sysconf("SC_PAGE_SIZE") if root.is_live else 4096}
