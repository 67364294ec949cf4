"""`numatune boot`, first half: write again what /etc/numatune/boot.conf
holds (the format: numatune.facts.bootfile). Runs without a policy, a plan
or a journal: it restores what an applied transaction left, it decides
nothing. The second half (numatune.apply.replay) plans again what no value
line can hold."""
import os
import sys

from numatune.facts.bootfile import PATH, REPLAY_PATH, parse


def run(root, out=None):
    """Write every value of the boot file under ``root``; one line per
    setting on ``out`` (the journal, under systemd). Returns the number of
    settings that failed (a missing file on this boot, a value the kernel
    refused): the others are still written."""
    out = out or sys.stdout
    text = root.read_text(PATH)
    if text is None:
        if not root.exists(REPLAY_PATH):
            out.write("numatune boot: neither %s nor %s exists: nothing to restore\n" % (PATH, REPLAY_PATH))
        return 0
    failed = 0
    for path, value in parse(text):
        before = root.read_value(path)
        try:
            fd = root.open(path, os.O_WRONLY | os.O_TRUNC)
            try:
                os.write(fd, (value + "\n").encode())
            finally:
                os.close(fd)
        except OSError as e:
            failed += 1
            out.write("numatune boot: %s: not set to %s: %s\n" % (path, value, e.strerror or e))
            continue
        after = root.read_value(path)
        # A pool the kernel filled less than asked says so; the next setting still runs.
        # A choice file (THP's enabled) reads back as "always madvise [never]": the bracketed word is the value.
        note = "" if after is None or after == value or "[%s]" % value in after.split() \
            else " (the kernel holds %s)" % after
        out.write("numatune boot: %s = %s (was %s)%s\n" % (path, value, before, note))
    out.flush()
    return failed
