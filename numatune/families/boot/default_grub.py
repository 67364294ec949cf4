"""/etc/default/grub as the shell reads it: every VAR=value with where its
value sits, so GRUB_CMDLINE_LINUX can be read and edited in place. A line
this parser cannot read for certain is an error, never a guess."""
import re
from dataclasses import dataclass

from numatune.errors import BootConfigError

DEFAULT_GRUB = "/etc/default/grub"
ASSIGN = re.compile(r"(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=")


@dataclass
class ShellAssignment:
    name: str
    value: str          # after shell unquoting
    lineno: int
    value_start: int    # offsets of the value as written, quotes included
    value_end: int
    simple: bool        # one "...", '...' or bare word without escapes: safe to edit in place


def scan_default_grub(text, path=DEFAULT_GRUB):
    """Every VAR=value of a shell-sourced file, in order, with where its value sits."""
    found, pos, lineno = [], 0, 1
    while pos < len(text):
        eol = _eol(text, pos)
        line = text[pos:eol]
        stripped = line.lstrip(" \t")
        m = ASSIGN.match(text, pos + len(line) - len(stripped))
        if not m or stripped.startswith("#"):
            if stripped.strip() and not stripped.startswith("#") and "GRUB_CMDLINE_LINUX" in line:
                raise BootConfigError(
                    "%s:%d: cannot tell what this does to GRUB_CMDLINE_LINUX: %s"
                    % (path, lineno, line.strip()),
                    "write it as a plain GRUB_CMDLINE_LINUX=\"...\" line")
            pos, lineno = eol + 1, lineno + 1
            continue
        value, end, simple = _shell_word(text, m.end(), path, lineno, m.group(1))
        eol = _eol(text, end)
        rest = text[end:eol].strip(" \t\r")
        if rest and not rest.startswith("#"):
            raise BootConfigError(
                "%s:%d: %s: text after the value: %r (the shell would run it as a command)"
                % (path, lineno + text.count("\n", pos, end), m.group(1), rest),
                "put the whole value inside one pair of quotes")
        found.append(ShellAssignment(m.group(1), value, lineno, m.end(), end, simple))
        lineno += text.count("\n", pos, eol) + 1
        pos = eol + 1
    return found


def _eol(text, pos):
    eol = text.find("\n", pos)
    return len(text) if eol < 0 else eol


_WORD_END = " \t\r\n;&|"


def _shell_word(text, i, path, lineno, name):
    """Unquote the shell word at ``i`` -> (value, end offset, simple)."""
    out, segments, escaped, begin = [], 0, False, i
    while i < len(text) and text[i] not in _WORD_END:
        ch = text[i]
        segments += 1
        if ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
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
            while j < len(text) and text[j] not in _WORD_END + "\"'\\":
                j += 1
            out.append(text[i:j])
            i = j
    simple = segments <= 1 and not escaped and "\n" not in text[begin:i]
    return "".join(out), i, simple


def parse_default_grub(text, path=DEFAULT_GRUB):
    """VAR -> value as the shell would leave it (the last assignment wins)."""
    return {a.name: a.value for a in scan_default_grub(text, path)}
