"""Kernel-argument edits to bootloader files: text (or bytes) in, text out, nothing else touched.

Each editor rewrites only the arguments it owns and keeps every other byte, including the
odd double spaces and tabs of generated files, so a revert is a plain write of the old
bytes and a diff shows exactly one changed line per place.  Arguments that reach the
kernel through GRUB variables ($kernelopts, $tuned_params) are edited where the variable
is set, never by expanding it: tuned owns $tuned_params and numatune leaves it alone.

Numatune treats the keys it adds as single-valued: adding ``transparent_hugepage=never``
drops any other ``transparent_hugepage=...`` (the kernel honours the last one).
"""
from types import SimpleNamespace

from numatune.errors import BootConfigError
from numatune.families.boot import grub_d, grub_legacy
from numatune.families.boot.bootloader import (BootEntry, arg_spans, boot_config_from_files, decode, encode,
                                               is_rescue, scan_grub_cfg, split_args, variable_name)
from numatune.families.boot.default_grub import ASSIGN, EDITED, scan_default_grub
from numatune.families.boot.grubenv import ENCODING, GRUBENV_SIZE, grubenv_layout

# hugepages=N counts pages of the hugepagesz= before it, so a new value of these goes to the
# end of the line rather than into the old one's place: adding hugepagesz= then hugepages=,
# together or in two edits, leaves them last and in that order.
HUGEPAGE_KEYS = ("default_hugepagesz", "hugepagesz", "hugepages")
# Characters an added argument may not carry: each would need quoting in one of the files.
_UNSAFE = set("\"'\\$`#;&|<>(){}") | {"\n", "\r", "\t", " "}


def arg_key(arg):
    return arg.split("=", 1)[0]


def arg_matches(token, pattern):
    """"numa=off" matches only itself; "numa" matches numa and numa=anything."""
    if "=" in pattern:
        return token == pattern
    return token == pattern or token.startswith(pattern + "=")


def check_args(add, remove):
    """ValueError for requests no file could honour; the policy layer turns it into its error."""
    for arg in list(add) + list(remove):
        if not arg or _UNSAFE & set(arg) or arg.startswith("="):
            raise ValueError("kernel argument %r cannot be written safely to the bootloader" % arg)
    keys = [arg_key(a) for a in add]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError("kernel argument %s is added twice with different values" % dup[0])
    for a in add:
        hit = [r for r in remove if arg_matches(a, r)]
        if hit:
            raise ValueError("kernel argument %s is both added and removed (by %r)" % (a, hit[0]))


def _edit(tokens, add, remove, strip_only=False):
    """[(original index or None, token)] after the edit, order kept."""
    check_args(add, remove)
    out = [(i, t) for i, t in enumerate(tokens)
           if variable_name(t) or not any(arg_matches(t, r) for r in remove)]
    for arg in add:
        key = arg_key(arg)
        same = [n for n, (_, t) in enumerate(out) if arg_key(t) == key]
        keep = [n for n in same if out[n][1] == arg]
        drop = set(n for n in same if out[n][1] != arg)
        if not keep and same and not strip_only and key not in HUGEPAGE_KEYS:
            # The new value takes the first old one's place: a diff then reads as one change.
            out[same[0]] = (out[same[0]][0], arg)
            drop.discard(same[0])
        out = [item for n, item in enumerate(out) if n not in drop]
        if not keep and not strip_only and (not same or key in HUGEPAGE_KEYS):
            out.append((None, arg))
    return out


def edit_args(args, add, remove):
    """The argument list after removing ``remove`` and adding ``add`` (idempotent)."""
    return [t for _, t in _edit(list(args), add, remove)]


def edit_arg_text(text, add, remove, strip_only=False, lead=" "):
    """Edit the arguments in ``text`` keeping the spacing around those left alone.

    ``lead`` separates the first argument from whatever precedes ``text`` when
    ``text`` had none.  ``strip_only`` removes (and drops conflicting values of
    ``add``) without adding: for places whose additions belong elsewhere.
    """
    spans = arg_spans(text)
    tokens = [text[a:b] for a, b in spans]
    result = _edit(tokens, add, remove, strip_only)
    if [t for _, t in result] == tokens:
        return text
    head = text[:spans[0][0]] if spans else ""
    tail = text[spans[-1][1]:] if spans else text
    pieces = []
    for j, (i, token) in enumerate(result):
        if j == 0:
            sep = head if (head or spans) else lead
        elif i is not None and i > 0:
            sep = text[spans[i - 1][1]:spans[i][0]]
        else:
            sep = " "
        pieces.append(sep + token)
    return "".join(pieces) + tail


def _lines(text):
    """(content, line ending) pairs; joining them gives back ``text``."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        out.append([body, line[len(body):]])
    return out


def _join(lines):
    return "".join(body + end for body, end in lines)


# --- the editors -----------------------------------------------------------------------

def edit_bls_entry(text, add, remove):
    """Edit the ``options`` line(s) of a BLS entry.

    An entry that takes its arguments from ``$kernelopts`` gets nothing added (the
    grubenv edit adds there) but still loses removed or conflicting literal arguments.
    """
    lines = _lines(text)
    where = []
    for n, (body, _) in enumerate(lines):
        words = body.split(None, 1)
        if words and words[0] == "options":
            start = body.index("options") + len("options")
            where.append((n, start))
    tokens = [t for n, s in where for t in split_args(lines[n][0][s:])]
    strip_only = any(variable_name(t) == "kernelopts" for t in tokens)
    if not where:
        if not add or strip_only:
            return text
        prefix = "" if not text or text.endswith("\n") else "\n"
        return text + prefix + "options " + " ".join(add) + "\n"
    for n, start in where:
        last = n == where[-1][0]
        body = lines[n][0]
        lines[n][0] = body[:start] + edit_arg_text(body[start:], add, remove,
                                                    strip_only=strip_only or not last)
    return _join(lines)


def edit_grubenv(data, add, remove, path="grubenv"):
    """Bytes in, bytes out: edit ``kernelopts=`` and re-pad the block to 1024 bytes.

    A grubenv without kernelopts (or with an empty one) is returned unchanged: GRUB then
    uses grub.cfg's fallback, and a kernelopts holding only our arguments would drop root=.
    """
    variables, body_end = grubenv_layout(data, path)
    found = [v for v in variables if v[0] == "kernelopts"]
    if not found or not found[-1][1].strip():
        return data
    _, raw, start, end = found[-1]
    value = raw.decode(*ENCODING)
    new = edit_arg_text(value, add, remove, lead="").encode(*ENCODING)
    if new == raw:
        return data
    body = data[:start] + b"kernelopts=" + new + b"\n" + data[end:body_end]
    if len(body) > GRUBENV_SIZE:
        raise BootConfigError(
            "%s: kernelopts would need %d bytes, more than the %d-byte GRUB environment block holds"
            % (path, len(body), GRUBENV_SIZE),
            "drop unused grubenv variables with `grub2-editenv %s unset NAME`" % path)
    return body + b"#" * (GRUBENV_SIZE - len(body))


def edit_default_grub(text, add, remove, path="/etc/default/grub"):
    """Edit GRUB_CMDLINE_LINUX (what grub2-mkconfig and new kernels use), keeping its quotes.

    Removals and conflicting values also leave GRUB_CMDLINE_LINUX_DEFAULT, which
    grub2-mkconfig appends after it; earlier, overridden assignments are cleaned the same way.
    """
    names = ("GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT")
    found = [a for a in scan_default_grub(text, path) if a.name in names]
    main = [a for a in found if a.name == "GRUB_CMDLINE_LINUX"]
    last = main[-1] if main else None
    # Back to front, so the offsets of earlier assignments stay valid.
    for a in reversed(found):
        text = _edit_assignment(text, a, add, remove, a is not last, path)
    if last is None and add:
        _refuse_unreadable(text, path)
        prefix = "" if not text or text.endswith("\n") else "\n"
        text += prefix + 'GRUB_CMDLINE_LINUX="%s"\n' % " ".join(add)
    return text


def _refuse_unreadable(text, path):
    """Appending GRUB_CMDLINE_LINUX= to a file that is not plain shell
    assignments (random bytes, a binary) would hide our line in garbage."""
    for lineno, line in enumerate(text.split("\n"), 1):
        body = line.strip(" \t\r")
        if "\x00" in line or any("\udc80" <= c <= "\udcff" for c in line):
            problem = "binary or non-UTF-8 bytes"
        elif body and not body.startswith("#") and not ASSIGN.match(body):
            problem = "not a VAR=value line: %r" % body[:40]
        else:
            continue
        raise BootConfigError("%s:%d: %s; GRUB_CMDLINE_LINUX is not added to a file numatune cannot read"
                              % (path, lineno, problem), "fix the file, or set GRUB_CMDLINE_LINUX by hand")


def _edit_assignment(text, a, add, remove, strip_only, path):
    if not a.simple:
        if edit_arg_text(a.value, add, remove, strip_only, lead="") == a.value:
            return text
        raise BootConfigError(
            "%s:%d: %s is too intricate to edit safely (escapes, several quoted parts or lines)"
            % (path, a.lineno, a.name),
            'write it as one quoted string: %s="..."' % a.name)
    raw = text[a.value_start:a.value_end]
    quote = raw[0] if raw[:1] in ("'", '"') else ""
    inner = raw[1:-1] if quote else raw
    new_inner = edit_arg_text(inner, add, remove, strip_only, lead="")
    if new_inner == inner:
        return text
    if not quote and len(split_args(new_inner)) != 1:
        quote = '"'  # a bare word cannot hold spaces, nor be empty
    return text[:a.value_start] + quote + new_inner + quote + text[a.value_end:]


def edit_kernel_cmdline(text, add, remove):
    """/etc/kernel/cmdline, which kernel-install copies into the entries of new kernels."""
    new = edit_arg_text(text, add, remove, lead="")
    if new != text and not text:
        new += "\n"
    return new


def edit_grub_cfg(text, add, remove):
    """The linux/linux16/linuxefi lines of a legacy grub.cfg's menuentries (not rescue ones).

    ``set tuned_params`` in the 00_tuned block is not a linux line, so tuned's
    arguments stay tuned's; ``$tuned_params`` tokens are kept where they are.
    """
    return _edit_entry_lines(text, scan_grub_cfg(text)[0], add, remove)


def edit_grub_conf(text, add, remove):
    """GRUB legacy's grub.conf: the Linux line (kernel, or module under Xen) of every non-rescue entry."""
    return _edit_entry_lines(text, grub_legacy.scan(text)[0], add, remove)


def _edit_entry_lines(text, entries, add, remove):
    """Edit the arguments of each non-rescue entry's Linux line (``lineno``
    from ``args_start`` on); every other byte, line endings too, is kept."""
    lines = text.splitlines(keepends=True)
    for entry in entries:
        if is_rescue(entry.title, "", entry.kernel):
            continue
        line = lines[entry.lineno]
        body = line.rstrip("\r\n")
        lines[entry.lineno] = (body[:entry.args_start] + edit_arg_text(body[entry.args_start:], add, remove)
                               + line[len(body):])
    return "".join(lines)


# EDITORS[name](content, add, remove): "grubenv" takes and returns bytes, the others str.
EDITORS = {
    "bls": edit_bls_entry,
    "grubenv": edit_grubenv,
    "default_grub": edit_default_grub,
    "kernel_cmdline": edit_kernel_cmdline,
    "grub_cfg": edit_grub_cfg,
    "grub_conf": edit_grub_conf,
}
BYTES_EDITORS = frozenset({"grubenv"})


def apply_editor(name, data, add, remove, path=None):
    """Run EDITORS[name] on file bytes, whatever its kind: bytes in, bytes out."""
    if name in BYTES_EDITORS:
        return EDITORS[name](data, add, remove, path or "grubenv")
    text = data.decode(*ENCODING)
    if name == "default_grub" and path:
        return edit_default_grub(text, add, remove, path).encode(*ENCODING)
    return EDITORS[name](text, add, remove).encode(*ENCODING)


# --- planning --------------------------------------------------------------------------

def _targets(cfg):
    out = []
    if cfg.kind == "bls":
        out += [(e.path, "bls") for e in cfg.entries if not e.rescue]
    if cfg.grubenv_path and cfg.kind != "none":
        out.append((cfg.grubenv_path, "grubenv"))
    if cfg.kind == "grub2-legacy" and cfg.grub_cfg_path:
        out += [(p, "grub_cfg") for p in [cfg.grub_cfg_path] + list(cfg.grub_cfg_others)]
    if cfg.kind == "grub-legacy":
        out.append((cfg.grub_conf_path, "grub_conf"))
    # With no boot entries known, these still say what kernels installed later and
    # the next grub2-mkconfig get (the plan says the next boot is not known).
    if cfg.default_grub_path:
        out.append((cfg.default_grub_path, "default_grub"))
    if cfg.kernel_cmdline_path:
        out.append((cfg.kernel_cmdline_path, "kernel_cmdline"))
    return out


def plan_boot_edits(cfg, add, remove):
    """[(host path, editor name)] of the files whose bytes the edit changes.

    The edits are tried on the bytes read and the result is read back: if a (non-rescue)
    entry would still lack an argument or carry an unwanted one, because it comes from
    $tuned_params or from grub.cfg's fallback kernelopts, this raises BootConfigError
    instead of planning an edit that cannot work.
    """
    check_args(add, remove)
    contents, changed = dict(cfg.contents), []
    for path, name in _targets(cfg):
        old = encode(contents[path])
        new = apply_editor(name, old, add, remove, path)
        if new != old:
            contents[path] = new
            changed.append((path, name))
    after = boot_config_from_files(
        contents, [e.path for e in cfg.entries] if cfg.kind == "bls" else [],
        cfg.grubenv_path, cfg.default_grub_path, cfg.kernel_cmdline_path, cfg.grub_cfg_path,
        cfg.grub_conf_path, cfg.grub_cfg_others, cfg.boot_choice, cfg.grub_d_paths)
    problems = missing_in_entries(after, add, remove)
    if problems:
        path, problem = problems[0]
        raise BootConfigError("%s: %s even after editing the bootloader files" % (path, problem),
                              _why(cfg, problem))
    # The entries hold; what the next grub-mkconfig writes must hold too.
    texts = [(p, decode(contents[p])) for p in [cfg.default_grub_path] + cfg.grub_d_paths if p]
    grub_d.check(texts, cfg.grub_d_paths, lambda values: _mkconfig_problem(values, add, remove))
    return changed


def _why(cfg, problem):
    arg = problem.split()[-1]
    if any(arg_matches(t, arg) or arg_key(t) == arg_key(arg) for t in cfg.tuned_params or []):
        return ("it comes from $tuned_params, which tuned's bootloader plugin owns: "
                "change the [bootloader] cmdline of the tuned profile")
    if not cfg.kernelopts and any("kernelopts" in e.raw_options for e in cfg.entries):
        return ("the entries use $kernelopts but %s sets none, so GRUB uses grub.cfg's fallback: "
                "run `grub2-mkconfig` or `grubby --update-kernel=ALL` first"
                % (cfg.grubenv_path or "grubenv"))
    return "check the entry's options by hand"


def _mkconfig_problem(values, add, remove):
    """(variable, problem) when the entry grub-mkconfig writes from ``values`` (GRUB_CMDLINE_LINUX,
    then GRUB_CMDLINE_LINUX_DEFAULT) breaks the edit, else None. The variable is the one that holds
    the token, or another value of its key, last: its assignment undid the edit."""
    per_name = {name: split_args(values[name] or "") for name in EDITED}
    entry = BootEntry("", "", "", per_name[EDITED[0]] + per_name[EDITED[1]], "")
    problems = missing_in_entries(SimpleNamespace(entries=[entry]), add, remove)
    if not problems:
        return None
    arg = problems[0][1].split()[-1]
    name = next((n for n in reversed(EDITED) if any(t == arg or arg_key(t) == arg_key(arg) for t in per_name[n])),
                EDITED[0])
    return name, problems[0][1]


def missing_in_entries(cfg, present, absent):
    """[(entry path, problem)] for non-rescue entries that lack or carry the wrong arguments.

    "present" wants that exact token as the last value of its key (the one the kernel
    keeps), and several hugepage arguments in that order; "absent" "numa=off" is
    broken only by that token, "numa" by numa or numa=*.
    """
    out = []
    group = [a for a in present if arg_key(a) in HUGEPAGE_KEYS]
    keys = {arg_key(a) for a in group}
    for entry in cfg.entries:
        if entry.rescue:
            continue
        if len(group) > 1 and [t for t in entry.args if arg_key(t) in keys] != group:
            out.append((entry.path, "lacks %s" % " ".join(group)))
        for arg in present:
            values = [t for t in entry.args if arg_key(t) == arg_key(arg)]
            if not values or values[-1] != arg:
                out.append((entry.path, "lacks %s" % arg))
        for arg in absent:
            hits = [t for t in entry.args if arg_matches(t, arg)]
            if hits:
                out.append((entry.path, "carries %s" % hits[0]))
    return out
