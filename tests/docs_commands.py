"""The commands the README and docs/*.md show, read out of the Markdown (the convention is in
docs/README.md): ```console blocks hold `$ ` command lines, a `<!-- not run: REASON -->` line before a
block keeps it from running, ```text blocks of `numatune ...` lines are synopses. Used by
tests/test_docs_commands.py."""
import contextlib
import io
import re
import shlex
from dataclasses import dataclass, field

NOT_RUN = re.compile(r"^<!--\s*not run:\s*(\S.*?)\s*-->$")
EXIT = re.compile(r"#\s*exit (\d+)\b")
# Shell words that start a command line: an indented or other fenced block holding one of these is a
# command shown outside the convention.
SHELL_WORDS = ("numatune", "python", "python3", "pip", "sh", "bash", "cp", "git", "rpmbuild", "systemctl",
               "dnf", "yum", "rm", "tests/", "bench/", "tar", "echo", "diff", "sudo")
# Subcommands that write to the root they are given: shown running, they must name a copy.
WRITERS = {"apply", "revert", "boot", "confirm"}


@dataclass
class Command:
    doc: str
    line: int
    text: str
    run: bool
    reason: str = ""
    status: int = 0


@dataclass
class Doc:
    name: str
    commands: list = field(default_factory=list)   # Command, in order
    synopses: list = field(default_factory=list)   # (line, text)
    stray: list = field(default_factory=list)      # (line, text): a command outside the convention
    unclosed: list = field(default_factory=list)   # line of a fence that nothing closes


def _shell_like(text):
    word = text.strip().split(" ", 1)[0]
    return any(word == w or (w.endswith("/") and word.startswith(w)) for w in SHELL_WORDS)


def parse(name, text, exempt=()):
    """The commands of one Markdown file. `exempt`: indented lines run elsewhere (.ci/run)."""
    doc = Doc(name)
    lines = text.splitlines()
    i, last = 0, ""
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^(\s*)(```+)\s*(\S*)", line)
        if fence:
            indent, ticks, lang = fence.groups()
            reason = NOT_RUN.match(last.strip())
            j = i + 1
            body = []
            while j < len(lines) and not lines[j].strip().startswith(ticks):
                body.append((j + 1, lines[j][len(indent):]))
                j += 1
            if j >= len(lines):
                doc.unclosed.append(i + 1)
            _block(doc, lang, body, reason.group(1) if reason else "")
            i, last = j + 1, ""
            continue
        if line.startswith("    ") and _shell_like(line) and line.rstrip() not in exempt and not _in_list(lines, i):
            doc.stray.append((i + 1, line.strip()))
        if line.strip():
            last = line
        i += 1
    return doc


def _in_list(lines, i):
    """An indented line that continues a list item, not a code block."""
    for back in range(i - 1, -1, -1):
        prev = lines[back]
        if not prev.strip():
            return False
        if re.match(r"^\s*[-*] |^\s*\d+\. ", prev):
            return True
        if not prev.startswith("    "):
            return False
    return False


def _block(doc, lang, body, reason):
    if lang == "console":
        pending = None
        for number, line in body:
            if pending is not None:
                pending = (pending[0], pending[1] + " " + line.strip())
            elif line.startswith("$ "):
                pending = (number, line[2:])
            else:
                continue
            if pending[1].endswith("\\"):
                pending = (pending[0], pending[1][:-1].rstrip())
                continue
            status = EXIT.search(pending[1])
            doc.commands.append(Command(doc.name, pending[0], pending[1], not reason, reason,
                                        int(status.group(1)) if status else 0))
            pending = None
    elif lang == "text":
        doc.synopses += [(n, l.strip()) for n, l in body if l.strip().startswith("numatune ")]
    elif lang not in ("toml", "json", "ini", "yaml", "python", "sql", "promql"):
        doc.stray += [(n, l.strip()) for n, l in body if l.startswith("$ ") or _shell_like(l)]


def invocations(text):
    """Each `numatune ...` of a shell line, as its argument list (pipes, `&&`, `;` split it)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words, out = list(lexer), []
    current = []
    for w in words + [";"]:
        if w in ("|", "||", "&&", ";", "&", ">", ">>", "<", "2>"):
            if current and current[0] == "numatune":
                out.append(current[1:])
            current = [] if w not in (">", ">>", "<", "2>") else ["<redirect>"]
        else:
            current.append(w)
    return out


def parser_error(args):
    """What the CLI's parser says of these arguments, or None when it takes them."""
    from numatune.cli import build_parser
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser(args).parse_args(args)
    except SystemExit as stop:
        if stop.code not in (0, None):
            return err.getvalue().strip() or "exit %s" % stop.code
    return None


def writes_outside_a_copy(args):
    """A shown running command that would write to this machine's / (no --root)."""
    sub = next((a for a in args if not a.startswith("-")), "")
    return sub in WRITERS and not any(a == "--root" or a.startswith("--root=") for a in args)


def synopsis_flags(text):
    """(subcommand words, flags) of a synopsis line such as `numatune policy show [FILE]... [--root DIR]`."""
    words = text.split()[1:]
    sub = [w for w in words[:2] if re.match(r"^[a-z]+$", w)]
    if sub and sub[0] != "policy":
        sub = sub[:1]
    return sub, re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b", text)


def flag_errors(sub, flags):
    """The flags a subcommand's parser does not know."""
    from numatune.cli import build_parser
    parser = build_parser(sub)
    for name in sub:
        actions = [a for a in parser._actions if getattr(a, "choices", None) and isinstance(a.choices, dict)]
        if not actions or name not in actions[0].choices:
            return ["%s: no such command" % " ".join(sub)]
        parser = actions[0].choices[name]
    known = {o for a in parser._actions for o in a.option_strings}
    return ["%s: unknown flag %s" % (" ".join(sub), f) for f in flags if f not in known]
