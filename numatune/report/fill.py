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
_NOT_PLAIN = re.compile(r"[\t\n\x0b\x0c\r]|  ")
# textwrap's chunking. A word holds no whitespace, and what its lookarounds
# see beyond it (a space, or the end) is no letter either way: a word split
# alone gives the chunks the whole text's split gives it.
_CHUNKS = textwrap.TextWrapper.wordsep_re


def _pieces(word):
    return [c for c in _CHUNKS.split(word) if c] if "-" in word else (word,)


def fill(text, width=79, initial_indent="", subsequent_indent=""):
    """textwrap.fill(text, width, initial_indent=..., subsequent_indent=...)."""
    if not text or text[0] == " " or text[-1] == " " or _NOT_PLAIN.search(text):
        return textwrap.fill(text, width=width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    words = [_pieces(w) for w in text.split(" ")] if "-" in text else [(w,) for w in text.split(" ")]
    first, rest = width - len(initial_indent), width - len(subsequent_indent)
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
