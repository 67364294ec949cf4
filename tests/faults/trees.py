"""Copies of a case root and their digests, cheap enough for 10,000 runs (#28).

``digest`` is conftest.tree_digest's (path -> kind, content hash, mode, owner,
link target; numatune's state directory and its parents aside), with a regular
file's hash kept while its inode, size, mtime and ctime stay as they were when
it was hashed: any write, chmod, chown or link changes the ctime, which no
process can set back, so only what a run touched is read again.

``Copies`` keeps one copy per source for each worker process and, before the
next run, puts back only the entries the last run's digest shows changed (and
the state directory whole), then checks the result against the source's
digest; anything it cannot put back (a device node, a failed check) is a
fresh ``cp -a``. A failed run's copy is moved aside, kept for inspection.
"""
import hashlib
import os
import shutil
import stat
import subprocess

from conftest import STATE

_HASHES = {}    # path -> ((dev, ino, size, mtime, ctime), sha256): this process's cache


def _hash(path, st):
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _HASHES.get(path)
    if known and known[0] == key:
        return known[1]
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        h = hashlib.sha256()
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            h.update(chunk)
    finally:
        os.close(fd)
    _HASHES[path] = (key, h.hexdigest())
    return _HASHES[path][1]


def _entry(path, st):
    m = st.st_mode
    if stat.S_ISLNK(m):
        return ("link", os.readlink(path))
    if stat.S_ISDIR(m):
        return ("dir", m, st.st_uid, st.st_gid)
    if not stat.S_ISREG(m):
        # A FIFO or device (planted by the campaign): its metadata, never read (it would block).
        return ("special", m, st.st_uid, st.st_gid, st.st_rdev)
    return ("file", _hash(path, st), m, st.st_uid, st.st_gid)


def digest(root, ignore=(STATE,)):
    out = {}
    ancestors = {i.rsplit("/", n)[0] for i in ignore for n in range(1, i.count("/") + 1)}
    stack = [(str(root), "")]
    while stack:
        top, rel = stack.pop()
        with os.scandir(top) as it:
            for e in it:
                r = rel + e.name
                if r in ignore:
                    continue
                st = e.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    stack.append((e.path, r + "/"))
                if r not in ancestors:
                    out[r] = _entry(e.path, st)
    return out


def differs(a, b, skip=()):
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k) and k not in skip)


def _remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def _put(src, dst, entry):
    """Make dst what src is (its parent exists): a directory's own mode and owner, a file's bytes."""
    kind = entry[0]
    if kind == "link":
        os.symlink(os.readlink(src), dst)
        st = os.lstat(src)
        os.lchown(dst, st.st_uid, st.st_gid)
        return
    if kind == "dir":
        if not os.path.isdir(dst) or os.path.islink(dst):
            os.mkdir(dst)
    elif kind == "file":
        shutil.copy2(src, dst, follow_symlinks=False)
    else:
        raise OSError("cannot put back a %s" % kind)
    os.chown(dst, entry[-2], entry[-1], follow_symlinks=False)
    os.chmod(dst, stat.S_IMODE(entry[1] if kind == "dir" else entry[2]))


def sync(copy, source, have, want):
    """Make ``copy`` equal ``source`` (digests ``have`` and ``want``) by
    replacing what differs, and the state directory whole."""
    copy, source = str(copy), str(source)
    changed = differs(have, want)
    for rel in sorted(changed, reverse=True):          # children before their parents
        old, new = have.get(rel), want.get(rel)
        if old is not None and not (new and old[0] == new[0] == "dir"):
            _remove(os.path.join(copy, rel))
    # The state directory and the parents numatune made for it: as the source has them.
    parts = STATE.split("/")
    for depth in range(len(parts), 0, -1):
        rel = "/".join(parts[:depth])
        if not os.path.lexists(os.path.join(source, rel)) or depth == len(parts):
            _remove(os.path.join(copy, rel))
    for depth in range(1, len(parts) + 1):
        rel = "/".join(parts[:depth])
        src, dst = os.path.join(source, rel), os.path.join(copy, rel)
        if not os.path.lexists(src):
            break
        if depth == len(parts):
            subprocess.run(["cp", "-a", src, dst], check=True)
        else:
            st = os.lstat(src)
            _put(src, dst, ("dir", st.st_mode, st.st_uid, st.st_gid))
    for rel in sorted(changed):                        # parents before their children
        if rel in want:
            _put(os.path.join(source, rel), os.path.join(copy, rel), want[rel])


class Copies:
    """This process's reusable copies under ``work``: one per (case, source)."""

    def __init__(self, work):
        self.work = work
        self.free = {}      # source path -> run directory holding an unchanged copy of it
        self.names = {}     # root in use -> (its source, the run's name)

    def get(self, source, want, name):
        """(root, canary) of a run directory whose root equals ``source``
        (digest ``want``), a canary file beside it."""
        run, have = self.free.pop(str(source), (None, None))
        fresh = run is None
        if fresh:
            run = self.work / ("w%d-%s" % (os.getpid(), os.path.basename(os.path.dirname(str(source)))
                                           + "-" + os.path.basename(str(source))))
            shutil.rmtree(run, ignore_errors=True)
            run.mkdir(parents=True)
        root = run / "root"
        if not fresh:
            try:
                have = have if have is not None else digest(root)
                sync(root, source, have, want)
                fresh = bool(differs(have, want)) and digest(root) != want
            except OSError:
                fresh = True
        if fresh:
            shutil.rmtree(root, ignore_errors=True)
            # cp -a, not shutil.copytree: owners are part of the tree compared (the bls-odd root).
            subprocess.run(["cp", "-a", str(source), str(root)], check=True)
        for extra in os.listdir(run):
            if extra != "root":
                _remove(str(run / extra))
        canary = run / "canary"
        canary.mkdir()
        (canary / "keep").write_text("canary\n")
        os.chmod(canary / "keep", 0o600)
        self.names[str(root)] = (str(source), name)
        return root, canary

    def done(self, root, problems, tree=None):
        """A clean run's copy is used again; a failed one's is kept under the run's name.
        ``tree``: the copy's digest as the run left it, if the caller has it."""
        source, name = self.names.pop(str(root))
        run = root.parent
        if problems:
            kept = run.parent / name
            shutil.rmtree(kept, ignore_errors=True)
            os.rename(run, kept)
        else:
            self.free[source] = (run, tree)
