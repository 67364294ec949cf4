"""Every command the README and docs/*.md show runs, so the docs cannot drift from the CLI.

Each page's ```console commands run in order, in an empty directory holding the repository's
tests/data, with this interpreter's `numatune` first on the PATH; a command must exit as the page
shows it (0, or the status its `# exit N` comment gives). A block marked `<!-- not run: REASON -->`
does not run, but its `numatune` lines still go through the CLI's parser, as do the synopses: an
unknown command or flag fails here. The convention is in docs/README.md."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docs_commands import flag_errors, invocations, parse, parser_error, synopsis_flags, writes_outside_a_copy

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))
# .ci/run runs the README's first two indented `python3 -m venv` lines verbatim, in a fresh clone.
CI_RUNS = tuple(l for l in (REPO / "README.md").read_text().splitlines() if l.startswith("    python3 -m venv "))[:2]


def _doc(path):
    return parse(str(path.relative_to(REPO)), path.read_text(), exempt=CI_RUNS)


def _ids(paths):
    return [str(p.relative_to(REPO)) for p in paths]


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_every_shown_command_is_in_the_convention(page):
    doc = _doc(page)
    assert not doc.stray, "%s: a command outside a ```console block (docs/README.md says how):\n%s" % (
        doc.name, "\n".join("  line %d: %s" % s for s in doc.stray))


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_every_fence_is_closed(page):
    # An unclosed fence swallows the headings and prose after it into one code block.
    assert not _doc(page).unclosed, "%s: the ``` fence on line %s is never closed" % (
        _doc(page).name, _doc(page).unclosed)


def test_an_unclosed_fence_is_caught():
    assert parse("x.md", "text\n```console\n$ true\n```\n\n```console\n$ true\n\n## Next\n").unclosed == [6]


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_every_numatune_command_and_synopsis_parses(page):
    doc = _doc(page)
    wrong = []
    for cmd in doc.commands:
        for args in invocations(cmd.text):
            error = parser_error(args)
            if error:
                wrong.append("line %d: numatune %s: %s" % (cmd.line, " ".join(args), error))
            if cmd.run and writes_outside_a_copy(args):
                wrong.append("line %d: numatune %s writes to this machine: give it --root on a copy, or mark "
                             "the block not run" % (cmd.line, " ".join(args)))
    for number, text in doc.synopses:
        sub, flags = synopsis_flags(text)
        wrong += ["line %d: %s" % (number, e) for e in flag_errors(sub, flags)]
    assert not wrong, "%s:\n%s" % (doc.name, "\n".join(wrong))


RUNNABLE = [p for p in PAGES if any(c.run for c in _doc(p).commands)]


@pytest.mark.parametrize("page", RUNNABLE, ids=_ids(RUNNABLE))
def test_every_shown_command_runs(page, tmp_path):
    doc = _doc(page)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "data").symlink_to(REPO / "tests" / "data")
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
               COLUMNS="80")
    for cmd in (c for c in doc.commands if c.run):
        proc = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd.text], cwd=str(tmp_path), env=env,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=300)
        assert proc.returncode == cmd.status and "Traceback" not in proc.stderr, \
            "%s line %d: `%s` exited %d (the page shows %d)\n%s%s" % (
                doc.name, cmd.line, cmd.text, proc.returncode, cmd.status, proc.stdout[-2000:], proc.stderr[-2000:])


def test_the_readme_walks_through_plan_apply_reboot_check_revert():
    run = [c.text for c in _doc(REPO / "README.md").commands if c.run]
    steps = ["numatune plan", "numatune apply", "numatune boot", "numatune check", "numatune revert"]
    at = [next((i for i, t in enumerate(run) if t.startswith(s)), None) for s in steps]
    assert None not in at and at == sorted(at), run
    assert all("--root" in t for t in run if t.startswith("numatune")), run
    assert len((REPO / "README.md").read_text().splitlines()) < 250


def test_the_readme_keeps_its_two_commands_on_the_first_screen():
    head = (REPO / "README.md").read_text().splitlines()[:24]
    assert [l for l in head if l.startswith("    python3 -m venv ")] == list(CI_RUNS) and len(CI_RUNS) == 2


# The checker itself: what it must catch.

def test_an_unknown_flag_is_caught(tmp_path):
    doc = parse("x.md", "```console\n$ numatune plan --root host --colour\n```\n")
    assert "unrecognized arguments: --colour" in parser_error(invocations(doc.commands[0].text)[0])


def test_a_not_run_block_is_still_parsed_and_a_synopsis_checked():
    doc = parse("x.md", "<!-- not run: writes /etc -->\n```console\n$ numatune aply --yes\n```\n\n"
                        "```text\nnumatune facts [--root DIR] [--only AREA] [--diff]\n```\n")
    assert not doc.commands[0].run and doc.commands[0].reason == "writes /etc"
    assert "unknown command 'aply'" in parser_error(invocations(doc.commands[0].text)[0])
    sub, flags = synopsis_flags(doc.synopses[0][1])
    assert flag_errors(sub, flags) == ["facts: unknown flag --diff"]


def test_a_command_outside_the_convention_and_a_write_to_slash_are_caught():
    doc = parse("x.md", "Text.\n\n    numatune apply --yes\n\n```sh\nnumatune plan\n```\n")
    assert [t for _, t in doc.stray] == ["numatune apply --yes", "numatune plan"]
    assert writes_outside_a_copy(["apply", "--yes"]) and not writes_outside_a_copy(["apply", "--root", "h"])
    assert invocations("numatune history --root h | head -3; numatune plan # exit 1") == \
        [["history", "--root", "h"], ["plan"]]


def test_an_exit_status_comment_sets_the_expected_status():
    doc = parse("x.md", "```console\n$ numatune plan --exit-code   # exit 1\n$ cp -a a \\\n    b\n```\n")
    assert [(c.text, c.status) for c in doc.commands] == [("numatune plan --exit-code   # exit 1", 1),
                                                          ("cp -a a b", 0)]


USER_DOCS = [p for p in PAGES if p.name != "DEVELOPING.md"]


@pytest.mark.parametrize("page", USER_DOCS, ids=_ids(USER_DOCS))
def test_user_docs_name_no_commit_or_issue(page):
    """A user reads what the tool does, not its history: no commit hashes, no issue numbers."""
    import re
    text = page.read_text()
    hashes = [h for h in re.findall(r"(?<![\w./-])[0-9a-f]{7,40}(?![\w-])", text) if re.search(r"[a-f]", h)
              and re.search(r"\d", h)]
    issues = re.findall(r"(?i)\bissue\s*#?\d+|(?<![\w&])#\d+\b", text)
    assert not hashes and not issues, (hashes, issues)
