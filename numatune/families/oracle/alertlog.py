"""The alert log as the instance's own evidence of what it got at startup.

Both timestamp formats are read: "Tue Oct 13 12:31:26 2020" (11g) and the
ISO-8601 lines of 12.2 and later. Only the last startup counts: evidence is
reset at each "Starting ORACLE instance". Parsing is pure (text in, dict out).
"""
import os
import re

from numatune.rootfs.readfile import refuse_kind

TAIL_BYTES = 4 << 20   # alert logs grow for years; the last startup is near the end

ISO_TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?$")
OLD_TS = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                    r"[ \d]\d \d\d:\d\d:\d\d \d{4}$")
UNITS_MB = {"KB": 1 / 1024, "MB": 1, "GB": 1024}

PATTERNS = [
    ("numa_nodes", re.compile(r"NUMA system with (\d+) nodes detected")),
    ("numa_found", re.compile(r"NUMA system found and support (enabled|disabled) \((\d+) domains")),
    ("numa_support", re.compile(r"Oracle NUMA support (not enabled|enabled|disabled)")),
    ("group", re.compile(r"Instance started in processor group (\S+) \(NUMA Nodes: ([^)]*?)\s*CPUs: ([^)]*)\)")),
    ("cpu_change", re.compile(r"Detected change in CPU count to (\d+)")),
    ("lp_total", re.compile(r"Total Shared Global Region in Large Pages = (\d+) ([KMG]B) \((\d+)%\)")),
    ("lp_used", re.compile(r"Large Pages used by this instance: (\d+)")),
    ("lp_size", re.compile(r"Large Page size = (\d+) ([KMG]B)")),
    ("lp_row", re.compile(r"^\s*(\d+)([KMG])\s+(\S+)\s+(\d+)\s+(\d+)\s+(\S.*?)\s*$")),
    ("sga_unsupported", re.compile(r"System cannot support SGA size of (\d+) MB")),
    ("shm_max", re.compile(r"Instance maximum shared memory size should be less than (\d+) MB")),
    ("memory", re.compile(r"Total system memory configured is (\d+) GB")),
    ("use_large_pages", re.compile(r"use_large_pages\s*=\s*\"?(\w+)\"?", re.I)),
    # The startup banner: "Version 19.3.0.0.0" (18c and later) after
    # "Oracle Database 19c ... Release 19.0.0.0.0 - Production".
    ("version", re.compile(r"^Version (\d+(?:\.\d+){3,})\.?\s*$")),
    ("release", re.compile(r"^Oracle Database \d+[a-z]* .*Release (\d+(?:\.\d+){3,})")),
    # 11g/12.1: "increase the number of unused Large Pages by atleast 89 2048 KB Large Pages"
    ("lp_short", re.compile(r"by at ?least (\d+) (\d+) KB Large Pages")),
    # What the SGA was at that startup, to tell Oracle's areas beside it from
    # the SGA itself: the startup's non-default parameters, and the line some
    # releases print ("Instance SGA_TARGET = 30720 MB and SGA_MAX_SIZE = 30720 MB").
    ("sga_line", re.compile(r"SGA_TARGET = (\d+) MB and SGA_MAX_SIZE = (\d+) MB")),
    ("startup_param", re.compile(r"^\s+(processes|sga_target|sga_max_size|memory_target|memory_max_target)"
                                 r"\s+=\s*\"?([0-9]+[KMGTkmgt]?)\"?\s*$")),
    # "Per process system memlock (soft) limit = UNLIMITED" (or "64G"): what the
    # instance could lock at that startup, whatever set it (limits.conf, a unit's LimitMEMLOCK).
    ("memlock", re.compile(r"Per process system memlock \(soft\) limit = (\S+)")),
    ("param_list", re.compile(r"System parameters with non-default values")),
]
# A line of the startup's parameter list: "  processor_group_name     = "oltp"".
LISTED = re.compile(r"^\s+([A-Za-z_][A-Za-z0-9_#$]*)\s+=\s*(.*?)\s*$")
MEMLOCK_KB = {"K": 1, "M": 1 << 10, "G": 1 << 20, "T": 1 << 30}


def is_timestamp(line):
    s = line.strip()
    return bool(ISO_TS.match(s) or OLD_TS.match(s))


def _empty():
    return {"started": None, "version": None, "lp_short": None, "numa_nodes": None, "numa_enabled": None,
            "processor_group": None,
            "cpu_count_changes": [], "large_pages": {}, "large_pages_percent": None,
            "large_pages_used": None, "errors": [], "parameters": {},
            # Every non-default parameter of that startup, when its list was logged (None: not seen).
            "listed": None, "memlock_kb": None}


def parse(text):
    """Evidence of the last startup in an alert log's text."""
    ev = _empty()
    startups = 0
    ts = None
    in_table = in_list = False
    for line in (text or "").splitlines():
        if is_timestamp(line):
            # The list is one message: the next message's timestamp ends it.
            ts, in_list = line.strip(), False
            continue
        if in_list:
            m = LISTED.match(line)
            if m:
                name, value = m.group(1).lower(), m.group(2)
                have = ev["listed"].get(name)
                ev["listed"][name] = value if have is None else "%s, %s" % (have, value)
            else:
                in_list = False
        if "Starting ORACLE instance" in line:
            startups += 1
            ev = _empty()
            ev["started"] = ts
            in_table = False
            continue
        if "PAGESIZE" in line and "EXPECTED_PAGES" in line:
            in_table = True
            continue
        for key, rx in PATTERNS:
            m = rx.search(line)
            if not m:
                continue
            if key == "param_list":
                in_list, ev["listed"] = True, {}
            elif key == "lp_row":
                if not in_table:
                    continue
                size_kb = int(m.group(1)) * {"K": 1, "M": 1024, "G": 1 << 20}[m.group(2)]
                ev["large_pages"][str(size_kb)] = {
                    "available": m.group(3), "expected": int(m.group(4)), "allocated": int(m.group(5)),
                    "error": m.group(6)}
            else:
                _record(ev, key, m)
            break
        else:
            if in_table and line.strip() and not line.strip().startswith("*"):
                in_table = False
    ev["startups"] = startups
    _old_report(ev)
    return ev


def _old_report(ev):
    """The 11g/12.1 report has no EXPECTED_PAGES column: the pages used,
    plus the shortfall it asks to add when the SGA did not fit."""
    used = ev["large_pages_used"]
    for kb, row in ev["large_pages"].items():
        if "expected" in row or used is None:
            continue
        short = ev["lp_short"] if ev["lp_short"] and ev["lp_short"][1] == int(kb) else None
        row.update(expected=used + (short[0] if short else 0), allocated=used)


def _record(ev, key, m):
    if key == "numa_nodes":
        ev["numa_nodes"] = int(m.group(1))
    elif key == "numa_found":
        ev["numa_nodes"] = int(m.group(2))
        ev["numa_enabled"] = m.group(1) == "enabled"
    elif key == "numa_support":
        ev["numa_enabled"] = m.group(1) == "enabled"
    elif key == "group":
        ev["processor_group"] = {"name": m.group(1), "nodes": m.group(2).strip(), "cpus": m.group(3).strip()}
    elif key == "cpu_change":
        ev["cpu_count_changes"].append(int(m.group(1)))
    elif key == "lp_total":
        ev["large_pages_percent"] = int(m.group(3))
    elif key == "lp_used":
        ev["large_pages_used"] = int(m.group(1))
    elif key == "lp_size":
        kb = int(int(m.group(1)) * UNITS_MB[m.group(2)] * 1024)
        ev["large_pages"].setdefault(str(kb), {})
    elif key in ("sga_unsupported", "shm_max", "memory"):
        ev["errors"].append(m.string.strip())
    elif key == "version":
        ev["version"] = [int(x) for x in m.group(1).split(".")]
    elif key == "release":
        # The Version line, when it follows, is more precise (19.3 over 19.0).
        ev["version"] = [int(x) for x in m.group(1).split(".")]
    elif key == "lp_short":
        ev["lp_short"] = (int(m.group(1)), int(m.group(2)))
    elif key == "sga_line":
        ev["parameters"].setdefault("sga_target", m.group(1) + "M")
        ev["parameters"].setdefault("sga_max_size", m.group(2) + "M")
    elif key == "startup_param":
        ev["parameters"][m.group(1)] = m.group(2)
    elif key == "use_large_pages":
        ev["use_large_pages"] = m.group(1).upper()
    elif key == "memlock":
        ev["memlock_kb"] = memlock_kb(m.group(1))


def memlock_kb(text):
    """"UNLIMITED" -> -1, "64G" -> kB, None when it does not read."""
    if text.upper() in ("UNLIMITED", "INFINITY"):
        return -1
    m = re.match(r"^(\d+)([KMGT])?B?$", text.upper())
    if not m:
        return None
    return int(m.group(1)) * MEMLOCK_KB[m.group(2)] if m.group(2) else int(m.group(1)) // 1024


def read(root, path):
    """Evidence from the tail of the alert log at ``path`` (host path)."""
    try:
        # Non-blocking: a FIFO planted at the log's path must not hang the plan (issue #28).
        fd = root.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        refused = refuse_kind(path, st.st_mode)
        if refused is not None:
            raise refused
        os.lseek(fd, max(0, st.st_size - TAIL_BYTES), os.SEEK_SET)
        chunks, left = [], TAIL_BYTES   # never more than the tail, even of a log growing as it is read
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return parse(b"".join(chunks).decode("utf-8", "replace"))
