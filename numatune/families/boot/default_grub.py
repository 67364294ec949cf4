"""/etc/default/grub as the shell reads it: every VAR=value with where its
value sits, so GRUB_CMDLINE_LINUX can be read and edited in place. The file is
split into commands the way the shell splits it (quotes, backticks and $( )
may span lines), so a line numatune never edits can hold anything the shell
accepts (Debian's stock GRUB_DISTRIBUTOR=`lsb_release ...`) and is kept byte
for byte. A line numatune must read or edit and cannot read for certain is an
error, never a guess."""
from __future__ import annotations

import re

from numatune.errors import BootConfigError
from numatune.model.records import record

DEFAULT_GRUB = "/etc/default/grub"
ASSIGN = re.compile(r"(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=")
# The variables numatune reads and edits (grub-mkconfig puts both on every linux line).
EDITED = ("GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT")


@record
class ShellAssignment:
    name: str
    value: Optional[str]  # after shell unquoting; None: a command's output, or a line numatune cannot read
    lineno: int
    value_start: int    # offsets of the value as written, quotes included
    value_end: int
    simple: bool        # one "...", '...' or bare word without escapes: safe to edit in place


def scan_default_grub(text, path=DEFAULT_GRUB):
    """Every VAR=value of a shell-sourced file, in order, with where its value sits."""
    found, pos, lineno = [], 0, 1
    while pos < len(text):
        line = text[pos:_eol(text, pos)]
        stripped = line.lstrip(" \t")
        m = ASSIGN.match(text, pos + len(line) - len(stripped))
        name = m.group(1) if m else "this line"
        if not m and ("\x00" in line or any("\udc80" <= c <= "\udcff" for c in line)):
            raise BootConfigError("%s:%d: binary or non-UTF-8 bytes; numatune does not read or edit such a file"
                                  % (path, lineno), "fix the file, or set GRUB_CMDLINE_LINUX by hand")
        end = _command_end(text, pos, path, lineno, name)
        command = text[pos:end]
        if m and not stripped.startswith("#"):
            found.append(_assignment(text, m, end, path, lineno))
        elif command.strip(" \t\r") and not stripped.startswith("#") and "GRUB_CMDLINE_LINUX" in command:
            raise BootConfigError(
                "%s:%d: cannot tell what this does to GRUB_CMDLINE_LINUX: %s"
                % (path, lineno, command.strip().splitlines()[0]),
                "write it as a plain GRUB_CMDLINE_LINUX=\"...\" line")
        lineno += text.count("\n", pos, end) + 1
        pos = end + 1
    return found


def _assignment(text, m, end, path, lineno):
    """The assignment at ``m``, whose command ends at ``end``."""
    name = m.group(1)
    value, word_end, simple, substituted = _shell_word(text, m.end(), path, lineno, name)
    rest = text[word_end:end].strip(" \t\r")
    trailing = rest and not rest.startswith("#")
    if name in EDITED and substituted:
        raise BootConfigError(
            "%s:%d: %s: its value is the output of a command (`...` or $(...)), which numatune does not run"
            % (path, lineno, name),
            'write the value itself: %s="..."' % name)
    if (substituted or trailing) and name not in EDITED and "GRUB_CMDLINE_LINUX" in text[m.end():end]:
        raise BootConfigError(
            "%s:%d: cannot tell what this does to GRUB_CMDLINE_LINUX: %s"
            % (path, lineno, text[m.start():end].strip().splitlines()[0]),
            "write it as a plain GRUB_CMDLINE_LINUX=\"...\" line")
    if trailing and name in EDITED:
        raise BootConfigError(
            "%s:%d: %s: text after the value: %r (the shell would run it as a command)"
            % (path, lineno + text.count("\n", m.start(), word_end), name, rest),
            "put the whole value inside one pair of quotes")
    if substituted or trailing:
        # Never edited: kept as written. Its value is not numatune's to know (it would have to run it).
        return ShellAssignment(name, None, lineno, m.end(), word_end, False)
    return ShellAssignment(name, value, lineno, m.end(), word_end, simple)


def _eol(text, pos):
    eol = text.find("\n", pos)
    return len(text) if eol < 0 else eol


def _command_end(text, i, path, lineno, name):
    """The offset of the newline that ends the command starting at ``i`` (quotes,
    substitutions and backslash-newlines continue it; a # starting a word ends it)."""
    word_start = True
    while i < len(text):
        ch = text[i]
        if ch == "\n":
            return i
        if ch == "#" and word_start:
            return _eol(text, i)
        if ch == "\\":
            i, word_start = i + 2, False
        elif ch in "'\"`" or text.startswith("$(", i):
            i, word_start = _skip_quoted(text, i, path, lineno, name), False
        else:
            i, word_start = i + 1, ch in " \t;&|()"
    return len(text)


_KINDS = {"'": "single quote", '"': "double quote", "`": "backtick", "$": "$("}


def _skip_quoted(text, i, path, lineno, name):
    """The offset just after the quoted part or substitution opening at ``i``."""
    ch = text[i]
    if ch == "'":
        j = text.find("'", i + 1)
        if j >= 0:
            return j + 1
    elif ch in '"`':
        j = i + 1
        while j < len(text) and text[j] != ch:
            if text[j] == "\\":
                j += 2
            elif ch == '"' and (text[j] == "`" or text.startswith("$(", j)):
                j = _skip_quoted(text, j, path, lineno, name)
            else:
                j += 1
        if j < len(text):
            return j + 1
    else:  # $( ... ), nested parentheses, quotes inside
        depth, j = 1, i + 2
        while j < len(text):
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c in "'\"`" or text.startswith("$(", j):
                j = _skip_quoted(text, j, path, lineno, name)
                continue
            depth += {"(": 1, ")": -1}.get(c, 0)
            j += 1
            if depth == 0:
                return j
    raise BootConfigError(
        "%s:%d: %s: the %s opened here is never closed" % (path, lineno, name, _KINDS[ch]),
        "close the quote at the end of the value")


_WORD_END = " \t\r\n;&|"


def _shell_word(text, i, path, lineno, name):
    """Unquote the shell word at ``i`` -> (value, end offset, simple, substituted)."""
    out, segments, escaped, substituted, begin = [], 0, False, False, i
    while i < len(text) and text[i] not in _WORD_END:
        ch = text[i]
        segments += 1
        if ch == "`" or text.startswith("$(", i):
            substituted = True
            j = _skip_quoted(text, i, path, lineno, name)
            out.append(text[i:j])
            i = j
        elif ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
                if ch == '"' and (text[j] == "`" or text.startswith("$(", j)):
                    substituted = True
                    k = _skip_quoted(text, j, path, lineno, name)
                    out.append(text[j:k])
                    j = k
                    continue
                if ch == '"' and text[j] == "\\" and j + 1 < len(text):
                    escaped = True
                    out.append(text[j + 1] if text[j + 1] in '$`"\\\n' else text[j:j + 2])
                    j += 2
                    continue
                out.append(text[j])
                j += 1
            if j >= len(text):
                raise BootConfigError(
                    "%s:%d: %s: the %s quote opened here is never closed" % (
                        path, lineno, name, "double" if ch == '"' else "single"),
                    "close the quote at the end of the value")
            i = j + 1
        elif ch == "\\":
            escaped = True
            out.append(text[i + 1:i + 2])
            i += 2
        else:
            j = i
            while j < len(text) and text[j] not in _WORD_END + "\"'\\`" and not text.startswith("$(", j):
                j += 1
            out.append(text[i:j])
            i = j
    simple = segments <= 1 and not escaped and not substituted and "\n" not in text[begin:i]
    return "".join(out), i, simple, substituted


def parse_default_grub(text, path=DEFAULT_GRUB):
    """VAR -> value as the shell would leave it (the last assignment wins; None: set by a command)."""
    return {a.name: a.value for a in scan_default_grub(text, path)}
