"""Whether a sysctl key exists at all, and what it may be a misspelling of.

A key the root's /proc/sys lacks is either one this kernel does not have
(an older kernel: info) or a typo (a rule that silently does nothing:
warning). The running kernel's /proc/sys and a built-in list of known keys
(for captures that hold only part of /proc/sys) tell them apart.
"""

from numatune.families.sysctl.known_keys import KNOWN

PROC_SYS = "/proc/sys"
MAX_NAMES = 5000  # /proc/sys/net on a host with many interfaces; enough to suggest from
# Keys a plan suggests a spelling for: each compares the key with up to
# MAX_NAMES names (10 ms), and a policy of 2,000 unknown keys planned for 20 s
# (#28). Past the first few, a policy is not misspelt but written for another kernel.
MAX_SUGGESTED = 20


def _walk(root, directory, prefix, out):
    for name in root.listdir(directory):
        if len(out) >= MAX_NAMES:
            return
        path = directory + "/" + name
        if root.isdir(path) and not root.islink(path):
            _walk(root, path, prefix + name + ".", out)
        else:
            out.append(prefix + name)


def names_near(root, key, walked=None):
    """The keys under the deepest directory of ``key``'s path that the root
    has (``kernel.numa_balancng`` -> every key under /proc/sys/kernel).
    ``walked``: {directory: names} of the walks already made."""
    parts, found = key.split(".")[:-1], []
    for part in parts:
        if not root.isdir("%s/%s" % (PROC_SYS, "/".join(found + [part]))):
            break
        found.append(part)
    directory = "/".join([PROC_SYS] + found)
    walked = {} if walked is None else walked
    if directory not in walked:
        walked[directory] = out = []
        _walk(root, directory, "".join(p + "." for p in found), out)
    return walked[directory]


def read(root, missing):
    """{key: [names near it]} for the first MAX_SUGGESTED keys the root's
    /proc/sys lacks and numatune does not know (I/O); a directory is walked once."""
    walked = {}
    unknown = [key for key in missing if key not in KNOWN][:MAX_SUGGESTED]
    return {key: names_near(root, key, walked) for key in unknown}


def known(key):
    return key in KNOWN


def suggest(key, near):
    """The likeliest intended key, or None (pure)."""
    import difflib  # only for a key the host lacks: not on every run's start
    candidates = set(near) | KNOWN
    close = difflib.get_close_matches(key, candidates, 1, 0.8)
    return close[0] if close else None


def one_edit(a, b):
    """Whether ``b`` is ``a`` with one character inserted, removed, replaced, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1:]
    return a[i + 1:] == b[i + 1:] or (a[i + 2:] == b[i + 2:] and a[i:i + 2] == b[i:i + 2][::-1])


def unknown(root, key):
    """Whether neither the root's kernel nor numatune knows ``key``."""
    return key not in KNOWN and not root.exists(PROC_SYS + "/" + key.replace(".", "/"))


def typo_of(root, key, walked=None):
    """The key the root's kernel or numatune knows that an unknown ``key`` is
    one edit away from, or None (I/O under the root)."""
    close = [name for name in set(names_near(root, key, walked)) | KNOWN if one_edit(key, name)]
    return min(close) if close else None
