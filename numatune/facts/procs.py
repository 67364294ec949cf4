"""One process table per run, shared by every family that asks which
processes run (tuned, irqbalance, an instance's ora_smon) or what they hold
open (/dev/cpu_dma_latency): /proc is listed once and each comm read once,
however many families ask.

The table hangs on the Root for the run; ``engine.gather`` starts a new one
each time it reads the host, so a re-plan after apply sees processes anew.
"""


class ProcessTable:
    def __init__(self, root):
        self._root = root
        self._pids = None
        self._comm = {}

    def pids(self):
        if self._pids is None:
            self._pids = sorted((int(p) for p in self._root.listdir("/proc") if p.isdigit()))
        return self._pids

    def comm(self, pid):
        if pid not in self._comm:
            # Most processes' only file read (1,000 of them): opened by its whole path, not
            # through /proc/PID opened and kept first (and the oldest kept directory closed).
            self._comm[pid] = self._root.read_value_alone("/proc/%d/comm" % pid)
        return self._comm[pid]

    def by_comm(self, names):
        """{comm: [pids]} for the processes whose command name is in ``names``."""
        names = set(names)
        out = {}
        for pid in self.pids():
            comm = self.comm(pid)
            if comm in names:
                out.setdefault(comm, []).append(pid)
        return out

    def holding(self, target):
        """[pid] of processes with ``target`` open (read from fd links only
        when asked: walking every fd/ is the costly part). Each fd/ is listed
        and its links read through one descriptor (Root.links)."""
        links = self._root.links
        return [pid for pid in self.pids() if target in links("/proc/%d/fd" % pid).values()]


def table(root):
    """The run's process table under ``root``."""
    found = getattr(root, "_process_table", None)
    if found is None:
        found = ProcessTable(root)
        root._process_table = found
    return found


def forget(root):
    """Start a new table: the next ``table(root)`` lists /proc again."""
    root._process_table = None
