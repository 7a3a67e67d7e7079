"""Every link in README.md and docs/ leads somewhere inside the repository that exists.

A relative link must name a file of this checkout (never one outside it: a clone holds nothing else), and a
``#fragment`` must name a heading of the page it points at, slugged as GitHub slugs headings. Links inside
code blocks and inline code are text, not links.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(```|~~~)")
_CODE = re.compile(r"`+[^`]*`+")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, inline code removed."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append(_CODE.sub("", line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose_lines(page.read_text(encoding="utf-8")):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    return [m.group(1) for line in prose_lines(page.read_text(encoding="utf-8")) for m in _LINK.finditer(line)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves_inside_the_repository(page: Path) -> None:
    problems: list[str] = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path_part, _, fragment = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if ROOT not in (destination, *destination.parents):
            problems.append(f"{target}: outside the repository")
            continue
        if not destination.exists():
            problems.append(f"{target}: no such file")
            continue
        if fragment and destination.suffix == ".md" and fragment not in anchors(destination):
            problems.append(f"{target}: no heading #{fragment} in {destination.relative_to(ROOT)}")
    assert not problems, f"{page.relative_to(ROOT)}: " + "; ".join(problems)


def test_the_readme_is_a_front_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150, "details belong in docs/"
    assert "make run" in readme and "make test" in readme
    linked = {Path(t.partition("#")[0]).name for t in links(ROOT / "README.md")}
    unlinked = [p.name for p in PAGES[1:] if p.name not in linked]
    assert not unlinked, f"docs pages the README does not link: {unlinked}"


def test_the_checker_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("# Title\n\n[ok](#title) [bad](#nope) `[code](#not-a-link)`\n```\n[fenced](x.md)\n```\n")
    assert links(page) == ["#title", "#nope"]
    assert anchors(page) == {"title"}
    assert slug("Folder trust: a repository you open cannot act for you") == "folder-trust-a-repository-you-open-cannot-act-for-you"
