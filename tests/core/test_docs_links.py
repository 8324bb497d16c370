"""The README stays a front door, and no page of the docs links to a file or heading that is not there.

Links are Markdown inline links ``[text](target)`` outside fenced code blocks; web addresses are
not followed. A link into ``docs/reference/`` (pages generated from the tables in the code) is
checked like any other once that folder exists, and skipped with the reason while it does not.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
REFERENCE = ROOT / "docs" / "reference"
README_MAX_LINES = 200

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def pages() -> list[Path]:
    """README.md, CONTRIBUTING.md and every docs/*.md (not the generated docs/reference/ pages)."""
    return [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def prose(path: Path) -> str:
    """The page's text with its fenced code blocks blanked out (a link in a code block is code)."""
    return FENCE.sub("", path.read_text(encoding="utf-8"))


def anchors(path: Path) -> set[str]:
    """The heading anchors GitHub gives a Markdown page: lower case, punctuation dropped, spaces to
    hyphens, a repeated heading suffixed -1, -2..."""
    seen: dict[str, int] = {}
    out = set()
    for title in HEADING.findall(prose(path)):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link in a heading: its text
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(path: Path) -> list[tuple[str, Path, str]]:
    """Every relative link of a page: (as written, the file it names, its #fragment or '')."""
    out = []
    for target in LINK.findall(prose(path)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, fragment = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        out.append((target, dest, fragment))
    return out


def is_reference(dest: Path) -> bool:
    return dest == REFERENCE or REFERENCE in dest.parents


def test_the_readme_is_a_front_door():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= README_MAX_LINES, (
        f"README.md has {n} lines (at most {README_MAX_LINES}): move details to docs/"
    )


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(page):
    bad = []
    for target, dest, fragment in links(page):
        if is_reference(dest) and not REFERENCE.is_dir():
            continue  # test_links_into_the_generated_reference says so
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            bad.append(f"{target}: no heading #{fragment} in {dest.relative_to(ROOT)}")
    assert not bad, f"{page.relative_to(ROOT)}: " + "; ".join(bad)


def test_links_into_the_generated_reference():
    targets = [(page, target) for page in pages() for target, dest, _ in links(page) if is_reference(dest)]
    assert targets, "no page links to docs/reference/ any more: drop this test"
    if not REFERENCE.is_dir():
        pytest.skip(
            f"docs/reference/ is not generated in this checkout; {len(targets)} links into it are "
            "checked once it is"
        )
    missing = [
        f"{page.relative_to(ROOT)}: {target}"
        for page, target in targets
        if not (page.parent / target.partition("#")[0]).resolve().exists()
    ]
    assert not missing, missing


def test_every_docs_page_is_linked_from_the_readme():
    linked = {dest for _, dest, _ in links(README)}
    orphans = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.resolve() not in linked]
    assert not orphans, f"docs pages no reader finds from the README: {orphans}"


def test_the_example_run_counts_every_claim_of_the_chapter():
    """The README's and docs/running.md's example sentence once said "29 claims hold ...; 11
    cannot", 40 of the chapter's 42 registry entries."""
    from claimcheck.registry import load_registry

    entries = len(load_registry(ROOT / "claims" / "ch15" / "claims.toml").claims)
    for page in (README, ROOT / "docs" / "running.md"):
        text = re.sub(r"\s+", " ", page.read_text(encoding="utf-8"))
        found = re.findall(r"(\d+) claims hold on this runner; (\d+) cannot be checked here", text)
        assert found, page.name
        assert all(int(held) + int(cannot) == entries for held, cannot in found), (page.name, found, entries)


def test_the_readme_and_each_skip_say_how_to_get_what_a_skipped_test_needs():
    """The test command skipped 22 tests a newcomer could not help: 16 for chromedriver (the
    README's install did not name it), 6 for chapter 15's text at a path outside the repository."""
    from tests.claimkit import CHAPTER_MISSING

    readme = re.sub(r"\s+", " ", README.read_text(encoding="utf-8"))
    assert "apt-get install chromium chromium-driver" in readme and "npm ci" in readme
    assert "CH15_TEXT=PATH" in readme and "set CH15_TEXT=PATH to your copy" in CHAPTER_MISSING
    browser = (ROOT / "tests" / "pages" / "test_browser.py").read_text(encoding="utf-8")
    assert "apt-get install chromium-driver" in browser and "or CHROMEDRIVER=PATH" in browser
