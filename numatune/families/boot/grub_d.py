"""/etc/default/grub.d/*.cfg: the files Debian's and Ubuntu's grub-mkconfig
sources after /etc/default/grub, in name order. The last assignment wins, so a
GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT set there (a cloud image's
50-cloudimg-settings.cfg) overrides numatune's edit of /etc/default/grub at the
next grub-mkconfig, which update-grub runs at each kernel update. numatune
does not edit these files: where one would undo an edit, the plan says which
line, and writes nothing for that argument.

``sourced`` and ``paths`` read the root; the rest is pure (texts in)."""
import re

from numatune.errors import BootConfigError
from numatune.families.boot.default_grub import DEFAULT_GRUB, EDITED, scan_default_grub

GRUB_D = "/etc/default/grub.d"
# Where distributions install grub-mkconfig: RHEL's grub2-mkconfig does not source grub.d, Debian's does.
MKCONFIGS = ("/usr/sbin/grub-mkconfig", "/usr/sbin/grub2-mkconfig", "/sbin/grub-mkconfig",
             "/sbin/grub2-mkconfig", "/usr/bin/grub-mkconfig", "/usr/bin/grub2-mkconfig")
_SOURCES_GRUB_D = "/default/grub.d/"
# Compiled (re's cache) when a value holds a "$": a plan of most hosts never expands one.
_REFERENCE = r"\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*)|(.?))"


def sourced(root):
    """Whether the next grub-mkconfig reads grub.d: as its script says; where the root holds no
    grub-mkconfig to ask (a capture of /etc and /boot), the files are taken to count, as on the
    distributions that ship them."""
    said = [root.read_text(path) for path in MKCONFIGS if root.exists(path)]
    said = [text for text in said if text is not None]
    return not said or any(_SOURCES_GRUB_D in text for text in said)


def paths(root):
    """The host paths the shell's ``grub.d/*.cfg`` names, in the order it sources them (its glob
    skips names starting with a dot; C-locale order)."""
    if not root.isdir(GRUB_D):
        return []
    return sorted(p for p in root.glob(GRUB_D, "*.cfg")
                  if not p.rpartition("/")[2].startswith(".") and not root.isdir(p))


def effective(texts):
    """({name: value or None}, {name: (path, line)}) of GRUB_CMDLINE_LINUX and
    GRUB_CMDLINE_LINUX_DEFAULT once the shell has sourced ``texts`` ([(path, text)]) in order.
    A value that refers to the variables themselves ("$GRUB_CMDLINE_LINUX_DEFAULT console=ttyS0")
    is expanded; one that refers to anything else cannot be known without running the shell."""
    values, where = dict.fromkeys(EDITED), {}
    for path, text in texts:
        for a in scan_default_grub(text, path):
            if a.name not in EDITED:
                continue
            if a.value is None:
                raise BootConfigError("%s:%d: cannot tell what %s is set to" % (path, a.lineno, a.name),
                                      'write it as a plain %s="..." line' % a.name)
            quoted_single = text[a.value_start:a.value_start + 1] == "'"
            values[a.name] = a.value if quoted_single else _expand(a.value, values, path, a.lineno, a.name)
            where[a.name] = (path, a.lineno)
    return values, where


def _expand(value, values, path, lineno, name):
    def one(m):
        ref = m.group(1) if m.group(1) is not None else m.group(2)
        if ref not in EDITED:
            raise BootConfigError("%s:%d: %s refers to %s, which numatune cannot know without running the shell"
                                  % (path, lineno, name, m.group(0) or "$"),
                                  'write the value itself: %s="..."' % name)
        return values.get(ref) or ""
    return re.sub(_REFERENCE, one, value)


def check(texts, grub_d_paths, problem_of):
    """Raise BootConfigError when a grub.d file would undo the edit: ``texts`` are [(path, text)] of
    /etc/default/grub after the edit and the grub.d files, in the order the shell sources them;
    ``problem_of(values)`` says (variable, problem) when the entries grub-mkconfig writes from
    ``values`` break the edit, else None (bootloader_edit knows what an entry must hold)."""
    if not grub_d_paths:
        return
    values, where = effective(texts)
    found = problem_of(values)
    if found is None:
        return
    name, problem = found
    path, lineno = where.get(name, ("", 0))
    if path not in grub_d_paths:
        return
    main = texts[0][0] if texts[0][0] not in grub_d_paths else DEFAULT_GRUB
    raise BootConfigError(
        "%s:%d sets %s after %s, so the next grub-mkconfig would write entries that %s"
        % (path, lineno, name, main, problem.replace("lacks", "lack").replace("carries", "carry")),
        "edit or remove that line in %s (numatune edits only %s), then plan again" % (path, main))
