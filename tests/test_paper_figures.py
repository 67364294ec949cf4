"""Every figure numatune quotes from a paper is in that paper: each why of
every shipped policy (comments too), each paragraph of the README and docs/ and each finding
text of the families that names a paper file has its figures (percentages,
ratios, sizes, watts) checked against that paper's excerpts in
tests/data/papers (verbatim lines; the papers themselves are not in the
clone). Where CI has the papers beside the clone, the excerpts are checked
against them."""
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXCERPTS = REPO / "tests" / "data" / "papers"
PAPER = re.compile(r"\b(\d{3}_[0-9a-f]{16})\.txt\b")
# 27%, 12-15%, 2.15x, 5.5GB, 175MB, 182 W
FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:-\d+)?%|\d+\.\d+x\b|\d+(?:\.\d+)?\s?[GM]B\b|\d+ W\b)")


def _norm(text):
    # The papers say "2.15 times" and "12 to 15 percent" as well as "12-15%".
    text = re.sub(r"(\d+(?:\.\d+)?) times\b", r"\1x", text)
    text = re.sub(r"(\d+) to (\d+) percent", r"\1-\2%", text)
    return re.sub(r"\s+", "", text)


def _excerpt(paper):
    path = EXCERPTS / (paper + ".excerpts.txt")
    assert path.exists(), "%s is cited but has no excerpts in tests/data/papers" % paper
    return _norm(path.read_text())


def _passages():
    """(where, text) of everything that may quote a paper."""
    for doc in [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md")):
        for i, para in enumerate(re.split(r"\n\s*\n|\n(?=- )", doc.read_text())):
            yield "%s paragraph %d" % (doc.relative_to(REPO), i), para
    for policy in sorted((REPO / "policies").glob("*.toml")):
        text = policy.read_text()
        for m in re.finditer(r'why = "([^"]*)"', text):
            yield "%s why" % policy.name, m.group(1)
        for block in re.split(r"\n(?!#)", text):
            if block.lstrip().startswith("#"):
                yield "%s comment" % policy.name, block
    for src in sorted((REPO / "numatune").rglob("*.py")):
        text = src.read_text()
        for m in re.finditer(r'"""(.*?)"""', text, re.S):
            yield str(src.relative_to(REPO)), m.group(1)
        for block in re.split(r"\n\n", text):
            if PAPER.search(block):
                yield str(src.relative_to(REPO)), block


def test_every_quoted_figure_is_in_the_paper_it_cites():
    checked, wrong = 0, []
    for where, text in _passages():
        papers = PAPER.findall(text)
        if not papers:
            continue
        corpus = "".join(_excerpt(p) for p in set(papers))
        for figure in FIGURE.findall(text):
            checked += 1
            if _norm(figure) not in corpus:
                wrong.append("%s: %s not in %s" % (where, figure, ", ".join(sorted(set(papers)))))
    assert not wrong, "\n".join(wrong)
    assert checked > 20      # the figures are there to check


def test_the_checker_catches_a_figure_the_paper_does_not_give():
    corpus = _excerpt("001_211b0b645b2f1cc8")
    assert _norm("27%") in corpus and _norm("5.5GB") in corpus
    assert _norm("31%") not in corpus and _norm("2.5x") not in corpus


def test_no_figures_not_at_hand_notes_remain():
    for path in [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md")) + sorted((REPO / "policies").glob("*.toml")):
        text = path.read_text()
        assert "not at hand" not in text and "no per-setting figure" not in text, path


def _papers_dir():
    env = os.environ.get("NUMATUNE_PAPERS")
    for candidate in ([Path(env)] if env else []) + [REPO.parent / "shared" / "papers"]:
        if candidate.is_dir():
            return candidate
    return None


@pytest.mark.skipif(_papers_dir() is None, reason="the papers are not beside this clone")
def test_excerpts_are_verbatim_lines_of_the_papers():
    papers = _papers_dir()
    for excerpt in EXCERPTS.glob("*.excerpts.txt"):
        paper = (papers / excerpt.name.replace(".excerpts.txt", ".txt")).read_text().splitlines()
        for line in excerpt.read_text().splitlines():
            assert line in paper, "%s: %r is not a line of the paper" % (excerpt.name, line[:80])
