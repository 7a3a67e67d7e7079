"""The memory section of the system prompt and how it joins the user memory."""

from __future__ import annotations

from pathlib import Path

from app.context.memory.paths import MemoryScope
from app.context.memory.prompt import (
    ScopeIndex,
    append_memory_prompt,
    build_memory_prompt,
    load_scope_indexes,
    memory_prompt,
    number_word,
)
from app.context.memory.index import (
    EMPTY_INDEX_TEXT,
    index_cut_reason,
    index_for_prompt,
)
from tests.unit.memory_support import make_paths, memory_text, put

PROJECT, USER = Path("/data/projects/x/memory"), Path("/data/memories")
FRONTMATTER_LINES = [
    "name: {{memory name}}",
    "description: {{one-line description — used to decide relevance in future conversations, so be specific}}",
    "type: {{user, feedback, project, reference}}",
]


def _indexes(project: str = "", user: str = "") -> list[ScopeIndex]:
    return [ScopeIndex(MemoryScope.PROJECT, PROJECT, project), ScopeIndex(MemoryScope.USER, USER, user)]


def test_condensed_prompt_while_every_index_is_empty() -> None:
    text = build_memory_prompt(_indexes())
    assert text.startswith("# auto memory\n")
    assert all(line in text for line in FRONTMATTER_LINES)
    assert f"`{PROJECT}`" in text and f"`{USER}`" in text
    assert "four types" in text
    assert "## " not in text  # no index sections


def test_full_prompt_with_the_indexes() -> None:
    text = build_memory_prompt(_indexes(project="- [A](user/a.md) \u2014 about a\n"))
    assert not text.startswith("# auto memory\n")
    assert all(line in text for line in FRONTMATTER_LINES)
    assert "two scopes" in text and "four types" in text
    assert f"## {PROJECT}/MEMORY.md\n\n- [A](user/a.md) \u2014 about a" in text
    assert text.endswith(f"## {USER}/MEMORY.md\n\n{EMPTY_INDEX_TEXT}")
    assert text.index(f"## {PROJECT}/MEMORY.md") < text.index(f"## {USER}/MEMORY.md")
    assert "even when the person explicitly asks" in text


def test_full_prompt_can_be_forced() -> None:
    text = build_memory_prompt(_indexes(), force_full=True)
    assert f"## {PROJECT}/MEMORY.md\n\n{EMPTY_INDEX_TEXT}" in text


def test_empty_index_sentence() -> None:
    assert EMPTY_INDEX_TEXT == "Your MEMORY.md is currently empty. When you save new memories, they will appear here."
    assert index_for_prompt(" \n ") == EMPTY_INDEX_TEXT
    assert index_for_prompt("\n- [a](b.md) \u2014 c\n\n") == "- [a](b.md) \u2014 c"


def _warning(reason: str) -> str:
    return (
        f"\n\n> WARNING: MEMORY.md is {reason}. Only part of it was loaded. "
        "Keep index entries to one line under ~200 chars; move detail into topic files."
    )


def test_too_many_lines() -> None:
    content = "\n".join(f"- line {i}" for i in range(250))
    assert index_for_prompt(content) == "\n".join(f"- line {i}" for i in range(200)) + _warning("250 lines (limit: 200)")


def test_too_many_characters() -> None:
    lines = [f"- {i:03} " + "x" * 290 for i in range(100)]  # 29,699 characters
    shown = index_for_prompt("\n".join(lines))
    body, _, _ = shown.partition("\n\n> WARNING")
    assert len(body) <= 25_000 and body.endswith("x")
    assert body.split("\n") == lines[: len(body.split("\n"))]
    assert shown.endswith(_warning("29.0 KB (limit: 24.4 KB) \u2014 index entries are too long"))


def test_too_many_lines_and_characters() -> None:
    content = "\n".join("y" * 200 for _ in range(300))
    assert index_for_prompt(content).endswith(_warning("300 lines and 58.9 KB"))


def test_kilobytes_round_halves_up_like_javascript() -> None:
    assert index_cut_reason(1, 256, over_lines=False, over_size=True).startswith("0.3 KB")  # 0.25 KB


def test_number_words() -> None:
    assert [number_word(n) for n in range(6)] == ["zero", "one", "two", "three", "four", "5"]


def test_append_memory_prompt() -> None:
    assert append_memory_prompt("", "PROMPT") == "PROMPT"
    assert append_memory_prompt("  \n ", "PROMPT") == "PROMPT"
    assert append_memory_prompt(None, "PROMPT") == "PROMPT"
    assert append_memory_prompt("\n rules \n", "PROMPT") == "rules\n\n---\n\nPROMPT"
    assert append_memory_prompt("rules", "") == "rules"


def test_loading_reads_each_index(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    put(paths.project_root, "MEMORY.md", "- [P](project/p.md) \u2014 p\n")
    indexes = load_scope_indexes(paths)
    assert [(i.scope, i.content) for i in indexes] == [
        (MemoryScope.PROJECT, "- [P](project/p.md) \u2014 p\n"),
        (MemoryScope.USER, ""),
    ]
    text = memory_prompt(paths)
    assert f"## {paths.project_root}/MEMORY.md\n\n- [P](project/p.md) \u2014 p" in text


def test_team_index_appears_when_the_team_directory_exists(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    put(paths.team_root, "MEMORY.md", "- [T](project/t.md) \u2014 t\n")
    text = memory_prompt(paths)
    assert "three scopes" in text and f"## {paths.team_root}/MEMORY.md" in text
    assert "never credentials" in text


def test_a_hand_written_team_index_loses_control_and_invisible_characters(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    written = "- [Deploy](project/deploy.md) \u2014 how we ship\u202e\u200b\x1b[31m\n- [Own words](project/x.md) \u2014 kept as written\n"
    put(paths.team_root, "MEMORY.md", written)
    put(paths.project_root, "MEMORY.md", "- [Mine\u200b](feedback/m.md) \u2014 mine\n")
    indexes = {index.scope: index.content for index in load_scope_indexes(paths)}
    assert indexes[MemoryScope.TEAM] == "- [Deploy](project/deploy.md) \u2014 how we ship [31m\n- [Own words](project/x.md) \u2014 kept as written\n"
    # Every index is read into the request the same way (issue 15: index lines of any scope lose
    # invisible characters); the person's file itself is never rewritten.
    assert indexes[MemoryScope.PROJECT] == "- [Mine](feedback/m.md) \u2014 mine\n"
    assert paths.index_file(MemoryScope.PROJECT).read_text(encoding="utf-8") == "- [Mine\u200b](feedback/m.md) \u2014 mine\n"


def test_a_symlinked_team_root_is_left_out(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    put(elsewhere, "MEMORY.md", "- [Leak](x.md) \u2014 outside\n")
    (paths.workspace_root / ".qwen").mkdir()
    paths.team_root.symlink_to(elsewhere)
    assert [i.scope for i in load_scope_indexes(paths)] == [MemoryScope.PROJECT, MemoryScope.USER]


def test_a_symlinked_index_is_not_read(tmp_path: Path) -> None:
    paths = make_paths(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("private text")
    paths.project_root.mkdir(parents=True)
    paths.index_file("project").symlink_to(outside)
    assert "private text" not in memory_prompt(paths)


def test_prompt_after_a_rebuild(tmp_path: Path) -> None:
    from app.context.memory.index import rebuild_index

    paths = make_paths(tmp_path)
    put(paths.user_root, "user/role.md", memory_text("Role", "Backend engineer", "user"))
    rebuild_index(paths, "user")
    assert f"## {paths.user_root}/MEMORY.md\n\n- [Role](user/role.md) \u2014 Backend engineer" in memory_prompt(paths)
