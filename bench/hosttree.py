"""Writing a synthetic root fast: files, directories and the relative
symlinks sysfs uses (/sys/block/sda -> ../devices/pci.../block/sda)."""
import os


class Tree:
    def __init__(self, path):
        self.path = os.path.abspath(path)
        self._dirs = set()
        self.files = 0

    def _mkdir(self, real):
        if real not in self._dirs:
            os.makedirs(real, exist_ok=True)
            self._dirs.add(real)

    def mkdir(self, path):
        self._mkdir(self.path + path)

    def write(self, path, text, mode=0o644):
        """``text`` as a sysfs/procfs attribute: one trailing newline added
        unless it already ends in one (or is bytes, written as is)."""
        real = self.path + path
        self._mkdir(os.path.dirname(real))
        data = text if isinstance(text, bytes) else (text if text.endswith("\n") else text + "\n").encode()
        fd = os.open(real, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self.files += 1

    def attrs(self, directory, values):
        for name, value in values.items():
            self.write("%s/%s" % (directory, name), str(value))

    def link(self, path, target):
        """A relative symlink at host path ``path`` pointing to host path
        ``target``, as the kernel makes them."""
        real = self.path + path
        parent = os.path.dirname(real)
        self._mkdir(parent)
        os.symlink(os.path.relpath(self.path + target, parent), real)
        self.files += 1


    def symlink(self, path, target):
        """A symlink whose target is kept as given (procfs fd links: "socket:[1234]")."""
        real = self.path + path
        self._mkdir(os.path.dirname(real))
        os.symlink(target, real)
        self.files += 1


def cpumask(cpus, ncpus):
    """The kernel's comma-separated 32-bit hex words for a CPU set, high word first."""
    words = (max(ncpus, 1) + 31) // 32
    bits = [0] * words
    for c in cpus:
        bits[c // 32] |= 1 << (c % 32)
    return ",".join("%08x" % w for w in reversed(bits))


def cpulist(cpus):
    """[0,1,2,5] -> "0-2,5"."""
    out = []
    cpus = sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def letters(index):
    """sd's disk names: 0 -> a, 25 -> z, 26 -> aa, 702 -> aaa (sd_format_disk_name)."""
    name = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        name = chr(ord("a") + rem) + name
    return name
