"""textwrap.fill, exactly, without textwrap's work for plain prose.

A plan's findings are wrapped one by one (800 of them when 256 NICs each
say something): textwrap splits every text with a regular expression that
knows hyphens and em-dashes, then joins chunk by chunk. Text of words
separated by single spaces, with no hyphen, no other whitespace and no word
too long for a line, wraps greedily at word boundaries: the same lines,
built here with str.split. Anything else goes to textwrap.
"""
import re
import textwrap

# What textwrap treats apart from plain words and single spaces: its other
# whitespace (replaced by spaces), hyphens (break points) and runs of spaces.
_NOT_PLAIN = re.compile(r"[\t\n\x0b\x0c\r-]|  ")


def fill(text, width=79, initial_indent="", subsequent_indent=""):
    """textwrap.fill(text, width, initial_indent=..., subsequent_indent=...)."""
    if not text or text[0] == " " or text[-1] == " " or _NOT_PLAIN.search(text):
        return textwrap.fill(text, width=width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    words = text.split(" ")
    first, rest = width - len(initial_indent), width - len(subsequent_indent)
    if len(max(words, key=len)) > min(first, rest) or not text.isascii() and not all(w.strip() for w in words):
        # A word longer than a line: textwrap cuts it. A "word" of Unicode spaces (U+00A0):
        # textwrap drops it at a line's ends, as str.strip() strips it.
        return textwrap.fill(text, width=width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    lines, indent, room = [], initial_indent, first
    line, used = [words[0]], len(words[0])
    for word in words[1:]:
        if used + 1 + len(word) <= room:
            line.append(word)
            used += 1 + len(word)
        else:
            lines.append(indent + " ".join(line))
            indent, room = subsequent_indent, rest
            line, used = [word], len(word)
    lines.append(indent + " ".join(line))
    return "\n".join(lines)
