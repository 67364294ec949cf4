"""The advice lines of `numatune facts`: what the host-level findings read."""
from numatune.report.factlines import line

NAME = "advice"


def facts_lines(facts):
    mine = facts.get(NAME) or {}
    if not mine:
        return []
    pids = mine.get("listeners") or []
    running = mine.get("irqbalance_running")
    irq = "%s, %s at boot" % ("running" if running else "not running" if running is False else "running unknown",
                              "enabled" if mine.get("irqbalance_enabled") else "not enabled")
    small = sorted(n for n, i in (mine.get("nics") or {}).items()
                   if not i.get("virtual") and i.get("operstate") == "up" and str(i.get("mtu")) == "1500")
    out = ["advice: %d listener(s)%s; irqbalance %s" % (
        len(pids), " (pid %s)" % ", ".join(map(str, pids)) if pids else "", irq)]
    out += line("physical NICs up at MTU 1500: %s" % (", ".join(small) or "none"))
    return out
