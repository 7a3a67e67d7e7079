"""MEMORY.md: the line format, field sanitising, link encoding, the limits, team rules."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote

import pytest

from app.context.memory.document import parse_memory_text
from app.context.memory.index import (
    INDEX_CUT_WARNING,
    IndexLine,
    assemble_index,
    index_lines,
    normalized_description,
    rebuild_index,
    team_index_lines,
)
from app.context.memory.index import (
    encode_index_path_target,
    index_line,
    limit_index_line,
    sanitize_index_field,
)
from app.context.memory.paths import MemoryScope
from app.context.memory.paths import TeamMemoryRootSecurityError
from app.context.memory.scan import scan_scope
from app.context.memory.textunits import utf16_len
from tests.unit.memory_support import DAY, NOW, entry, make_paths, memory_text, put


def test_line_format() -> None:
    assert index_line("DB tests", "feedback/db-tests.md", "Never mock the DB", "feedback") == (
        "- [DB tests](feedback/db-tests.md) \u2014 Never mock the DB"
    )


def test_empty_fields_fall_back_to_the_type() -> None:
    assert index_line("  ", "user/a.md", "\u200b", "user") == "- [user](user/a.md) \u2014 user"


def test_index_lines_use_the_entry_title_and_skip_unusable() -> None:
    good = entry("Role", "Senior engineer", memory_type="user")
    bad = replace(entry("Broken", memory_type="user"), document=parse_memory_text("no frontmatter"))
    assert [line.text for line in index_lines([bad, good])] == ["- [Role](user/role.md) \u2014 Senior engineer"]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("a\x00b\x1fc\x7fd\x9fe", "a b c d e"),  # 1: control characters become spaces
        ("zero\u200bwidth\u200f \u202aembed\u202e \u2066iso\u2069 \ufeffbom", "zerowidth embed iso bom"),  # 2: removed
        ("use `rm -rf`", "use 'rm -rf'"),  # 3: backticks
        ("[click](http://evil)", "[click] (http://evil)"),  # 4: a link cannot close and reopen
        ("  many \t\n  spaces  ", "many spaces"),  # 5: whitespace collapsed, trimmed
        ("x\u200b\x01y", "x y"),  # 1 before 2: the control char is a space, the zero-width char is gone
        ("a]\u200b(b", "a] (b"),  # 2 before 4: removing the invisible char makes "](" appear, then it is split
    ],
)
def test_sanitize_steps(raw: str, clean: str) -> None:
    assert sanitize_index_field(raw) == clean


def test_sanitize_caps_fields_at_120_units() -> None:
    assert sanitize_index_field("a" * 120) == "a" * 120
    capped = sanitize_index_field("word " * 40)
    assert capped == ("word " * 40)[:119].rstrip() + "\u2026"
    assert utf16_len(capped) <= 120
    # An emoji is two UTF-16 units and is never split in half.
    emoji = sanitize_index_field("\U0001F600" * 70)
    assert emoji == "\U0001F600" * 59 + "\u2026"


def test_lines_over_150_are_cut_with_an_ellipsis() -> None:
    line = "- [" + "t" * 100 + "](user/a.md) \u2014 " + "d  " * 30
    assert limit_index_line(line) == line[:149].rstrip() + "\u2026"
    assert limit_index_line("short") == "short"
    assert utf16_len(limit_index_line("x" * 151)) == 150


@pytest.mark.parametrize(
    "rel_path",
    [
        "user/with space.md",
        "user/[brackets].md",
        "user/(parens) and )(.md",
        "user/naïve 日本語 🎉.md",
        "user/100% sure%20.md",
        "user/line\nbreak.md",
        "user/back`tick.md",
        "user/plus+and&=#?.md",
    ],
)
def test_link_targets_decode_to_the_exact_path(rel_path: str) -> None:
    encoded = encode_index_path_target(rel_path)
    assert unquote(encoded) == rel_path
    assert all(c.isascii() and c not in " ()[]\n`" for c in encoded)


def test_link_encoding_details() -> None:
    assert encode_index_path_target("a b/(c)\n`~._-") == "a%20b/%28c%29%0A%60~._-"
    assert encode_index_path_target("é") == "%C3%A9"  # upper-case hex of the UTF-8 bytes
    assert encode_index_path_target("x" * 130) == "x" * 120  # first 120 code points
    assert encode_index_path_target("日" * 130) == "%E6%97%A5" * 120


def test_undecodable_file_names_round_trip_to_their_bytes() -> None:
    name = os.fsdecode(b"user/caf\xe9.md")
    assert unquote(encode_index_path_target(name), errors="surrogateescape") == name


def _lines(count: int, length: int = 20) -> list[IndexLine]:
    # Line i is i days old: line 0 is the newest.
    return [IndexLine(f"- [{i:04}](p/{i}.md) \u2014 " + "d" * length, NOW - i * DAY) for i in range(count)]


def test_assembly_within_the_limits() -> None:
    index = assemble_index(_lines(3))
    assert index.text == "\n".join(line.text for line in _lines(3))
    assert not index.cut and index.kept == 3


def test_over_200_lines_the_oldest_are_dropped() -> None:
    lines = _lines(205)
    index = assemble_index(lines)
    assert index.kept == 200
    assert {line.text for line in index.dropped} == {line.text for line in lines[200:]}
    assert index.text.endswith(INDEX_CUT_WARNING)
    assert INDEX_CUT_WARNING == (
        "\n\n> WARNING: MEMORY.md is too large; only part of it was written. "
        "Keep index entries concise and move detail into topic files."
    )
    assert lines[0].text in index.text and lines[204].text not in index.text


def test_oldest_dropped_even_when_they_sort_first() -> None:
    lines = list(reversed(_lines(201)))  # the oldest line is first in the file
    index = assemble_index(lines)
    assert index.dropped == (lines[0],)
    assert index.text.split("\n")[0] == lines[1].text  # order of the kept lines is unchanged


def test_over_25000_characters_the_oldest_are_dropped() -> None:
    lines = _lines(190, length=120)  # about 140 characters each: 26,000 in all
    index = assemble_index(lines)
    body = index.text.removesuffix(INDEX_CUT_WARNING)
    assert utf16_len(body) <= 25_000
    assert index.cut and index.kept < 190
    kept = body.split("\n")
    assert kept == [line.text for line in lines[: len(kept)]]  # the newest survive


def test_equal_ages_drop_the_later_line_first() -> None:
    lines = [IndexLine(f"line {i}", NOW) for i in range(202)]
    assert [line.text for line in assemble_index(lines).dropped] == ["line 200", "line 201"]


def test_rebuild_writes_sorted_lines(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    put(paths.project_root, "user/role.md", memory_text("Role", "Backend engineer", "user"))
    put(paths.project_root, "feedback/tests.md", memory_text("Tests", "Real DB only", "feedback"))
    put(paths.project_root, "feedback/broken.md", "no frontmatter")
    result = rebuild_index(paths, "project")
    assert result.written
    assert result.path.read_text() == (
        "- [Tests](feedback/tests.md) \u2014 Real DB only\n- [Role](user/role.md) \u2014 Backend engineer\n"
    )


def test_rebuild_of_an_empty_scope_writes_an_empty_index(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    result = rebuild_index(paths, "user")
    assert result.path.read_text() == "" and result.index.kept == 0


def test_rebuild_keeps_the_newest_when_cutting(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    for i in range(210):
        put(paths.project_root, f"project/m{i:03}.md", memory_text(f"M{i}", "d", "project"), mtime=NOW - i * 60)
    text = rebuild_index(paths, "project").path.read_text()
    assert "(project/m000.md)" in text and "(project/m199.md)" in text
    assert "(project/m200.md)" not in text and "(project/m209.md)" not in text
    assert "> WARNING: MEMORY.md is too large" in text


def test_index_symlink_is_replaced_not_written_through(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    put(paths.project_root, "user/a.md", memory_text("A", "", "user"))
    paths.index_file("project").symlink_to(victim)
    rebuild_index(paths, "project")
    assert victim.read_text() == "keep"
    assert not paths.index_file("project").is_symlink()


# Team index.


def test_team_index_sorts_by_code_unit(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    for name in ["\uff41.md", "\U0001F600.md", "a.md", "Z.md"]:
        put(paths.team_root, f"project/{name}", memory_text(name, "", "project"))
    lines = [line.text for line in team_index_lines(scan_scope(paths.team_root, MemoryScope.TEAM))]
    # UTF-16 order puts the emoji (a surrogate pair, D83D...) before U+FF41; code-point order would not.
    assert [line.split("](")[1].split(")")[0] for line in lines] == [
        "project/Z.md", "project/a.md", "project/%F0%9F%98%80.md", "project/%EF%BD%81.md",
    ]


def test_team_index_groups_same_descriptions(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    put(paths.team_root, "reference/a.md", memory_text("Dash A", "The Grafana board.", "reference"))
    put(paths.team_root, "reference/b c.md", memory_text("Dash B", "the  grafana BOARD", "reference"))
    put(paths.team_root, "reference/d.md", memory_text("Dash D", "The grafana board!)", "reference"))
    put(paths.team_root, "user/e.md", memory_text("E", "", "user"))
    put(paths.team_root, "user/f.md", memory_text("F", "", "user"))
    lines = [line.text for line in team_index_lines(scan_scope(paths.team_root, MemoryScope.TEAM))]
    assert lines == [
        "- [Dash A](reference/a.md) \u2014 The Grafana board. (also: reference/b%20c.md, reference/d.md)",
        "- [E](user/e.md) \u2014 user",  # empty descriptions never group
        "- [F](user/f.md) \u2014 user",
    ]


def test_grouped_lines_are_cut_after_the_also_list(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    for i in range(12):
        put(paths.team_root, f"reference/board-number-{i:02}.md", memory_text(f"B{i}", "Same board", "reference"))
    [line] = team_index_lines(scan_scope(paths.team_root, MemoryScope.TEAM))
    assert line.text.endswith("\u2026") and utf16_len(line.text) == 150
    assert "(also: reference/board-number-01.md" in line.text


def test_normalized_description() -> None:
    assert normalized_description("  The  Board.!?)]}'\"` ") == "the board"
    assert normalized_description("") == ""


def test_team_rebuild_skips_a_byte_identical_rewrite(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    put(paths.team_root, "project/a.md", memory_text("A", "x", "project"))
    first = rebuild_index(paths, "team")
    assert first.written
    os.utime(first.path, (1, 1))
    second = rebuild_index(paths, "team")
    assert not second.written and first.path.stat().st_mtime == 1
    put(paths.team_root, "project/b.md", memory_text("B", "y", "project"))
    assert rebuild_index(paths, "team").written


def test_team_rebuild_refuses_a_symlinked_root(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    put(elsewhere, "project/a.md", memory_text("A", "x", "project"))
    (paths.workspace_root / ".qwen").mkdir()
    paths.team_root.symlink_to(elsewhere)
    with pytest.raises(TeamMemoryRootSecurityError):
        rebuild_index(paths, "team")
    assert not (elsewhere / "MEMORY.md").exists()


# Merging into an index a person wrote: nothing they wrote is destroyed.

from app.context.memory.index import index_problems, link_targets  # noqa: E402
from app.context.memory.prompt import memory_prompt  # noqa: E402


def _hand_written_index(links: list[str], total: int = 253) -> str:
    """A MEMORY.md as people write them: a heading, notes, blank lines, links in their own words."""
    lines = ["# Project memory", "", "Notes for whoever picks this up next.", ""]
    lines += [f"- [{rel}]({rel}) - see this one" for rel in links]
    while len(lines) < total - 1:
        lines.append(f"- note {len(lines)}: the build cache lives in /var/cache/ci, clear it on Mondays")
    lines.append("## End")
    return "\n".join(lines) + "\n"


def test_a_hand_written_253_line_index_survives_startup_byte_for_byte(tmp_path: Path) -> None:
    from app.context.memory.manager import MemoryManager
    from app.config import MemorySettings
    from app.paths import Paths

    workspace = tmp_path / "repo"
    (workspace / ".git").mkdir(parents=True)
    paths = Paths.for_cwd(workspace)
    manager = MemoryManager(paths, session_id="s1", settings=MemorySettings())
    mem = manager.mem
    put(mem.project_root, "feedback/db.md", memory_text("db", "real database", "feedback", "No mocks."))
    put(mem.project_root, "project/release.md", memory_text("release", "Tuesdays", "project"))
    original = _hand_written_index(["feedback/db.md", "project/release.md", "project/gone.md"])
    index = mem.index_file(MemoryScope.PROJECT)
    index.write_bytes(original.encode("utf-8"))
    manager.refresh_indexes()  # what start-up does
    assert index.read_bytes() == original.encode("utf-8")
    prompt = memory_prompt(mem)
    assert "> WARNING: MEMORY.md is 253 lines (limit: 200). Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files." in prompt
    assert "## End" not in prompt  # the head is loaded, the tail is not
    problems = index_problems(mem, MemoryScope.PROJECT)
    assert any("links to project/gone.md, which does not exist" in p for p in problems)
    assert any("253 lines (limit: 200)" in p for p in problems)


def test_merge_adds_new_memories_and_updates_its_own_lines_only(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    put(paths.project_root, "feedback/db.md", memory_text("db", "real database", "feedback"))
    index = paths.index_file(MemoryScope.PROJECT)
    index.parent.mkdir(parents=True, exist_ok=True)
    index.write_text("# Mine\n- [db](feedback/db.md) \u2014 old description\n- [my words](feedback/db.md)\nkeep me\n", encoding="utf-8")
    put(paths.project_root, "project/new.md", memory_text("new", "a new memory", "project"))
    rebuild_index(paths, MemoryScope.PROJECT)
    assert index.read_text(encoding="utf-8") == (
        "# Mine\n- [db](feedback/db.md) \u2014 real database\n- [my words](feedback/db.md)\nkeep me\n- [new](project/new.md) \u2014 a new memory\n"
    )


def test_only_a_line_the_program_wrote_for_a_file_it_removed_goes(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    db = put(paths.project_root, "feedback/db.md", memory_text("db", "real database", "feedback"))
    put(paths.project_root, "project/keep.md", memory_text("keep", "kept", "project"))
    rebuild_index(paths, MemoryScope.PROJECT)
    index = paths.index_file(MemoryScope.PROJECT)
    index.write_text("Intro\n" + index.read_text(encoding="utf-8") + "- [by hand](feedback/db.md)\n", encoding="utf-8")
    db.unlink()
    rebuild_index(paths, MemoryScope.PROJECT)  # deleted outside the program: every line stays, flagged
    assert "- [db](feedback/db.md)" in index.read_text(encoding="utf-8")
    rebuild_index(paths, MemoryScope.PROJECT, removed=[db])  # the program removed it (a forget)
    assert index.read_text(encoding="utf-8") == "Intro\n- [keep](project/keep.md) \u2014 kept\n- [by hand](feedback/db.md)\n"


def test_link_targets() -> None:
    assert link_targets("- [a b](feedback/a%20b.md) \u2014 x") == ["feedback/a b.md"]
    assert link_targets("- [t](project/a.md) \u2014 d (also: project/b.md, project/c.md)") == ["project/a.md", "project/b.md", "project/c.md"]
    assert link_targets("# [heading](x.md)") == [] and link_targets("plain note") == []


@pytest.mark.parametrize("scope", [MemoryScope.PROJECT, MemoryScope.TEAM])
def test_a_hand_written_line_to_a_missing_file_survives_every_rebuild_and_is_flagged_dangling(tmp_path: Path, scope: MemoryScope) -> None:
    paths = make_paths(tmp_path)
    root = paths.root(scope)
    put(root, "feedback/a.md", memory_text("A", "aaa", "feedback"))
    index = paths.index_file(scope)
    written = (
        "# By hand\n- [A](feedback/a.md) \u2014 aaa\n- [Old](feedback/old.md) \u2014 an old one\n"
        # Its first link leads nowhere; its "also" names a file that exists (it was dropped as a duplicate).
        "- [X](feedback/x.md) \u2014 aaa (also: feedback/a.md)\n* notes in [gone](reference/gone.md)\n"
    )
    index.write_text(written, encoding="utf-8")
    put(root, "project/new.md", memory_text("new", "a new memory", "project"))
    rebuild_index(paths, scope)
    rebuild_index(paths, scope, removed=[root / "project" / "other.md"])
    text = index.read_text(encoding="utf-8")
    assert text.startswith(written) and text.count("\n") == written.count("\n") + 1  # one line appended for new.md
    problems = index_problems(paths, scope)
    for number, rel in ((3, "feedback/old.md"), (4, "feedback/x.md"), (5, "reference/gone.md")):
        assert f"MEMORY.md line {number} links to {rel}, which does not exist (dangling: the line is kept as written; edit or remove it)" in problems
