"""textwrap.fill, exactly, without textwrap's work for plain prose.

A plan's findings are wrapped one by one (800 of them when 256 NICs each
say something): textwrap splits every text with a regular expression that
knows hyphens and em-dashes, then joins chunk by chunk. Text of words
separated by single spaces, with no other whitespace and no chunk too long
for a line, wraps greedily: the same lines, built here with str.split.
Only a word with a hyphen goes through textwrap's own expression (its
chunks are the pieces textwrap breaks it into: `local-` and `node`), so
the breaks at hyphens are textwrap's; anything else goes to textwrap whole.
"""
import re
import textwrap

# What textwrap treats apart from single spaces between words: its other
# whitespace (replaced by spaces) and runs of spaces.
_NOT_PLAIN = r"[\t\n\x0b\x0c\r]|  "    # compiled (re's cache) for a text that is not printable ASCII
# textwrap's chunking. A word holds no whitespace, and what its lookarounds
# see beyond it (a space, or the end) is no letter either way: a word split
# alone gives the chunks the whole text's split gives it.
_CHUNKS = textwrap.TextWrapper.wordsep_re


def _pieces(word):
    return [c for c in _CHUNKS.split(word) if c] if "-" in word else (word,)


def _breaks(text, start, end):
    """Where a line may end inside the word text[start:end]: after each of its chunks but the last."""
    out = []
    for piece in _pieces(text[start:end])[:-1]:
        start += len(piece)
        out.append(start)
    return out


def _lines(text, first, rest, initial_indent, subsequent_indent):
    """Greedy lines of ASCII prose whose every word fits a line: each line found with
    str.rfind, not word by word. A line ends at the last space that fits, or after the
    last chunk that fits of a hyphenated word crossing the line's end (textwrap adds
    chunks while they fit: its line ends at the farthest break that fits)."""
    lines, indent, room, pos, n = [], initial_indent, first, 0, len(text)
    while n - pos > room:
        limit = pos + room
        cut = text.rfind(" ", pos, limit + 1)
        # The word crossing the line's end; it begins before the line when a line broke inside it.
        start = cut + 1 if cut >= pos else text.rfind(" ", 0, pos) + 1
        end = text.find(" ", limit)
        end = n if end < 0 else end
        broke = [b for b in _breaks(text, start, end) if pos < b <= limit] if "-" in text[start:end] else ()
        if broke:
            lines.append(indent + text[pos:broke[-1]])
            pos = broke[-1]
        else:
            lines.append(indent + text[pos:cut])
            pos = cut + 1
        indent, room = subsequent_indent, rest
    lines.append(indent + text[pos:])
    return "\n".join(lines)


def fill(text, width=79, initial_indent="", subsequent_indent=""):
    """textwrap.fill(text, width, initial_indent=..., subsequent_indent=...)."""
    # Printable ASCII holds none of the other whitespace: a run of spaces is the one thing to look for
    # there (two C tests, where the expression tried each character: 800 findings a many-NIC plan).
    if not text or text[0] == " " or text[-1] == " " or "  " in text or \
            not (text.isascii() and text.isprintable()) and re.search(_NOT_PLAIN, text):
        return textwrap.fill(text, width=width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    first, rest = width - len(initial_indent), width - len(subsequent_indent)
    if text.isascii() and max(map(len, text.split(" "))) <= min(first, rest):
        return _lines(text, first, rest, initial_indent, subsequent_indent)
    words = [_pieces(w) for w in text.split(" ")] if "-" in text else [(w,) for w in text.split(" ")]
    longest = max(len(p) for pieces in words for p in pieces)
    if longest > min(first, rest) or not text.isascii() and not all(p.strip() for ps in words for p in ps):
        # A chunk longer than a line: textwrap cuts it. A chunk of Unicode spaces (U+00A0):
        # textwrap drops it at a line's ends, as str.strip() strips it.
        return textwrap.fill(text, width=width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    lines, indent, room = [], initial_indent, first
    line, used = [], 0
    for pieces in words:
        # A space goes before a word's first chunk only; a line never ends or starts with it.
        gap = 1 if line else 0
        for piece in pieces:
            if used + gap + len(piece) <= room:
                if gap:
                    line.append(" ")
                line.append(piece)
                used += gap + len(piece)
            else:
                lines.append(indent + "".join(line))
                indent, room = subsequent_indent, rest
                line, used = [piece], len(piece)
            gap = 0
    lines.append(indent + "".join(line))
    return "\n".join(lines)
