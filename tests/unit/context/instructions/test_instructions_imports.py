"""``@import`` (Qwen Code §3): the scan, code regions, every replacement case, depth, flat format."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context.instructions import reading
from app.context.instructions.code_regions import code_spans, find_code_regions, may_be_code_at
from app.context.instructions.fscache import FsCache
from app.context.instructions.imports import ImportMatch, find_imports, process_imports, validate_import_path
from tests.unit.context.instructions.support import write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def expand(repo: Path, text: str, **kwargs: object) -> tuple[str, list[str]]:
    main = write(repo / "QWEN.md", text)
    result = process_imports(text, repo, current_file=main, processed={main}, **kwargs)  # type: ignore[arg-type]
    return result.content, [w.message for w in result.warnings]


# --- find_imports -------------------------------------------------------------


def paths(text: str) -> list[str]:
    return [m.path for m in find_imports(text)]


def test_an_import_starts_the_text_or_follows_whitespace() -> None:
    assert paths("@./a.md") == ["./a.md"]
    assert paths("x @./a.md y\t@b.md\n@/abs.md\r@C.md") == ["./a.md", "b.md", "/abs.md", "C.md"]
    assert paths("x(@./a.md) a@./b.md") == []


def test_an_email_address_is_not_an_import() -> None:
    assert paths("write to me@example.com or you@host") == []


def test_the_path_must_start_with_dot_slash_or_ascii_letter() -> None:
    assert paths("@中文路径 and @./中文文档.md") == ["./中文文档.md"]
    assert paths("@1st @_x @-y @ @") == []
    assert paths("@éa") == []


def test_the_path_runs_to_whitespace_and_the_scan_resumes_after_it() -> None:
    assert find_imports("see @./a.md@./b.md, @c") == [ImportMatch(4, 19, "./a.md@./b.md,"), ImportMatch(20, 22, "c")]


# --- code regions -------------------------------------------------------------


def region_texts(text: str) -> list[str]:
    return [text[a:b] for a, b in find_code_regions(text)]


def test_inline_code_spans_are_regions() -> None:
    text = "use `@./a.md` or ``x ` @./b.md`` here"
    assert region_texts(text) == ["`@./a.md`", "``x ` @./b.md``"]


def test_fenced_and_indented_blocks_are_regions() -> None:
    text = "intro\n\n```md\n@./a.md\n```\n\n    @./b.md\n\nafter @./c.md\n"
    assert region_texts(text) == ["```md\n@./a.md\n```\n", "    @./b.md\n"]


def test_regions_use_offsets_of_the_original_crlf_text() -> None:
    text = "intro `x`\r\n\r\n~~~\r\n@./a.md\r\n~~~\r\nlast `@./b.md`"
    assert region_texts(text) == ["`x`", "~~~\r\n@./a.md\r\n~~~\r\n", "`@./b.md`"]


def test_a_text_without_final_newline_and_an_unclosed_fence() -> None:
    text = "a\n```\n@./a.md"
    assert region_texts(text) == ["```\n@./a.md"]


def test_code_inside_containers_and_across_lines() -> None:
    text = "> quoted `one\n> two` end\n\n- item\n\n      indented in list\n"
    assert region_texts(text) == ["`one\n> two`", "      indented in list\n"]


def test_backtick_rules() -> None:
    # An escaped backtick opens nothing; the next one does.
    assert code_spans("\\`a` `b`") == [(3, 6)]
    assert code_spans("\\`not code\\` `code`") == [(13, 19)]
    assert code_spans("``unmatched` and `x`") == [(11, 18)]  # as markdown-it: the double run stays literal
    assert code_spans("no close `") == []


def _normalised_span(raw: str) -> str:
    """A span's content as CommonMark defines it (what markdown-it's code_inline tokens carry)."""
    fence = len(raw) - len(raw.lstrip("`"))
    inner = raw[fence:-fence].replace("\r\n", " ").replace("\n", " ")
    if len(inner) > 1 and inner[0] == " " and inner[-1] == " " and inner.strip(" "):
        inner = inner[1:-1]
    return inner


@pytest.mark.parametrize(
    "text",
    [
        "a `b` c ``d ` e`` f",
        "\\`x` `y`",
        "```not a fence``` inline",
        "`` ` `` and ` `` `",
        "multi `line\nspan` here",
        "unclosed ``` run",
        "![img `x`](u) [link `y`](z)",
        "*emph `a*` b*",
    ],
)
def test_code_spans_agree_with_markdown_it(text: str) -> None:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    expected = [c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "code_inline"]
    expected += [
        g.content for t in tokens if t.type == "inline" for c in t.children or [] for g in c.children or [] if g.type == "code_inline"
    ]
    found = [_normalised_span(text[a:b]) for a, b in find_code_regions(text)]
    assert sorted(found) == sorted(expected)


def test_no_parse_is_needed_where_code_cannot_be() -> None:
    assert not may_be_code_at("plain @./a.md", 6)
    assert may_be_code_at("```\n@./a.md", 4)
    assert may_be_code_at("x `@./a.md`", 3)
    assert may_be_code_at("    @./a.md", 4)
    assert not may_be_code_at("`x` then @./a.md", 9)


# --- process_imports: tree format ----------------------------------------------


def test_a_successful_import_is_wrapped_in_markers(repo: Path) -> None:
    write(repo / "docs" / "a.md", "A body")
    content, warnings = expand(repo, "Intro @./docs/a.md end")
    assert content == "Intro <!-- Imported from: ./docs/a.md -->\nA body\n<!-- End of import from: ./docs/a.md --> end"
    assert warnings == []


def test_imports_nest_relative_to_the_importing_file(repo: Path) -> None:
    write(repo / "docs" / "a.md", "A @./b.md")
    write(repo / "docs" / "b.md", "B")
    content, _ = expand(repo, "@docs/a.md")
    assert content == (
        "<!-- Imported from: docs/a.md -->\nA <!-- Imported from: ./b.md -->\nB\n<!-- End of import from: ./b.md -->"
        "\n<!-- End of import from: docs/a.md -->"
    )


def test_imports_inside_code_stay_literal(repo: Path) -> None:
    write(repo / "a.md", "A")
    text = "`@./a.md`\n\n```\n@./a.md\n```\n\n    @./a.md\n"
    content, _ = expand(repo, text)
    assert content == text


def test_an_email_address_is_left_alone(repo: Path) -> None:
    content, _ = expand(repo, "mail me@example.com")
    assert content == "mail me@example.com"


def test_depth_limit_warns_and_leaves_the_deepest_file_unchanged(repo: Path) -> None:
    for level in range(1, 7):
        write(repo / f"f{level}.md", f"level {level} @./f{level + 1}.md")
    content, warnings = expand(repo, "@./f1.md")
    assert warnings == ["Maximum import depth (5) reached. Stopping import processing."]
    # f1..f5 are imported at depths 1..5; f5's own import is the one left as written.
    assert "level 5 @./f6.md\n<!-- End of import from: ./f5.md -->" in content
    assert "Imported from: ./f6.md" not in content


def test_max_depth_is_configurable_and_named_in_the_warning(repo: Path) -> None:
    write(repo / "a.md", "A @./b.md")
    write(repo / "b.md", "B")
    content, warnings = expand(repo, "@./a.md", max_depth=1)
    assert warnings == ["Maximum import depth (1) reached. Stopping import processing."]
    assert content == "<!-- Imported from: ./a.md -->\nA @./b.md\n<!-- End of import from: ./a.md -->"


def test_depth_zero_returns_the_content_unchanged(repo: Path) -> None:
    content, warnings = expand(repo, "x @./a.md", max_depth=0)
    assert content == "x @./a.md" and warnings == ["Maximum import depth (0) reached. Stopping import processing."]


def test_a_cycle_is_cut(repo: Path) -> None:
    write(repo / "a.md", "A @./b.md")
    write(repo / "b.md", "B @./a.md")
    content, warnings = expand(repo, "@./a.md")
    assert content == (
        "<!-- Imported from: ./a.md -->\nA <!-- Imported from: ./b.md -->\nB <!-- File already processed: ./a.md -->"
        "\n<!-- End of import from: ./b.md -->\n<!-- End of import from: ./a.md -->"
    )
    assert warnings == []


def test_a_file_importing_itself(repo: Path) -> None:
    content, _ = expand(repo, "me @./QWEN.md")
    assert content == "me <!-- File already processed: ./QWEN.md -->"


def test_a_duplicate_import_is_expanded_at_each_occurrence(repo: Path) -> None:
    write(repo / "a.md", "A")
    content, _ = expand(repo, "@./a.md and again @a.md")
    assert content == (
        "<!-- Imported from: ./a.md -->\nA\n<!-- End of import from: ./a.md --> and again "
        "<!-- Imported from: a.md -->\nA\n<!-- End of import from: a.md -->"
    )


def test_only_a_file_up_the_chain_is_already_processed(repo: Path) -> None:
    write(repo / "a.md", "A @b.md")
    write(repo / "b.md", "B @a.md")
    content, _ = expand(repo, "@a.md @b.md")
    assert content.count("<!-- File already processed: a.md -->") == 1, "a -> b -> a is a cycle"
    assert content.count("<!-- File already processed: b.md -->") == 1, "b -> a -> b is a cycle"
    assert content.count("<!-- Imported from: b.md -->") == 2, "b under a, and b again at the top"


def test_repeats_that_multiply_stop_at_the_expansion_bound(repo: Path) -> None:
    from app.context.instructions.imports import MAX_EXPANSIONS

    for level in range(4):
        write(repo / f"l{level}.md", " ".join([f"@l{level + 1}.md"] * 10))
    write(repo / "l4.md", "leaf")
    content, warnings = expand(repo, "@l0.md")
    assert content.count("leaf") < MAX_EXPANSIONS, "10^4 leaves would be expanded without the bound"
    assert f"More than {MAX_EXPANSIONS} imports in one load" in content
    assert any("More than" in w for w in warnings)


def test_path_traversal_is_refused(repo: Path) -> None:
    content, warnings = expand(repo, "@../../etc/passwd")
    assert content == "<!-- Import failed: ../../etc/passwd - Path traversal attempt -->"
    assert warnings == ["Import failed: ../../etc/passwd - Path traversal attempt"]


def test_urls_are_refused(repo: Path) -> None:
    content, _ = expand(repo, "@https://x @http://y @file:///etc/hosts")
    assert content == (
        "<!-- Import failed: https://x - Path traversal attempt --> "
        "<!-- Import failed: http://y - Path traversal attempt --> "
        "<!-- Import failed: file:///etc/hosts - Path traversal attempt -->"
    )


def test_absolute_paths_inside_the_project_are_allowed_outside_refused(repo: Path, tmp_path: Path) -> None:
    inside = write(repo / "docs" / "a.md", "A")
    outside = write(tmp_path / "secret.md", "S")
    content, _ = expand(repo, f"@{inside} @{outside}")
    assert content == (
        f"<!-- Imported from: {inside} -->\nA\n<!-- End of import from: {inside} --> "
        f"<!-- Import failed: {outside} - Path traversal attempt -->"
    )


def test_a_symlink_pointing_outside_the_project_is_refused(repo: Path, tmp_path: Path) -> None:
    secret = write(tmp_path / "secret.md", "S")
    (repo / "link.md").symlink_to(secret)
    content, _ = expand(repo, "@./link.md")
    assert content == "<!-- Import failed: ./link.md - Path traversal attempt -->"


def test_the_project_root_defaults_to_the_git_root(repo: Path) -> None:
    write(repo / "shared.md", "S")
    nested = write(repo / "pkg" / "QWEN.md", "@../shared.md")
    result = process_imports("@../shared.md", nested.parent, current_file=nested)
    assert result.content == "<!-- Imported from: ../shared.md -->\nS\n<!-- End of import from: ../shared.md -->"


def test_without_git_the_project_root_is_the_base_path(tmp_path: Path) -> None:
    write(tmp_path / "shared.md", "S")
    result = process_imports("@../shared.md", tmp_path / "pkg")
    assert result.content == "<!-- Import failed: ../shared.md - Path traversal attempt -->"
    assert result.tree.path == "unknown"


def test_an_explicit_project_root_wins(tmp_path: Path) -> None:
    write(tmp_path / "shared.md", "S")
    result = process_imports("@../shared.md", tmp_path / "pkg", project_root=tmp_path)
    assert "Imported from: ../shared.md" in result.content


def test_a_missing_file_keeps_the_literal_text(repo: Path) -> None:
    content, warnings = expand(repo, "ping @alice about @./nope.md")
    assert content == "ping @alice about @./nope.md" and warnings == []


def test_a_directory_fails_with_a_message(repo: Path) -> None:
    (repo / "docs").mkdir()
    content, warnings = expand(repo, "@./docs")
    assert content == "<!-- Import failed: ./docs - Is a directory -->"
    assert warnings == ["Import failed: ./docs - Is a directory"]


def test_non_utf8_import_fails_with_a_message(repo: Path) -> None:
    write(repo / "latin1.md", "caf\xe9".encode("latin-1"))
    content, warnings = expand(repo, "@./latin1.md")
    assert content == "<!-- Import failed: ./latin1.md - Not valid UTF-8 text -->"
    assert warnings == ["Import failed: ./latin1.md - Not valid UTF-8 text"]


def test_an_oversize_import_fails_with_a_message(repo: Path) -> None:
    write(repo / "big.md", "x" * 100)
    main = write(repo / "QWEN.md", "@./big.md")
    result = process_imports("@./big.md", repo, current_file=main, fs=FsCache(max_bytes=10))
    assert result.content == "<!-- Import failed: ./big.md - File is larger than 10 bytes -->"


def test_permission_denied_fails_with_a_message(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = write(repo / "locked.md", "L")

    def deny(path: object, mode: str = "r") -> object:
        if Path(str(path)) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return open(path, mode)  # type: ignore[call-overload]

    monkeypatch.setattr(reading, "open", deny, raising=False)
    content, warnings = expand(repo, "@./locked.md")
    assert content == "<!-- Import failed: ./locked.md - Permission denied -->"
    assert warnings == ["Import failed: ./locked.md - Permission denied"]


def test_a_symlink_loop_fails_with_a_message(repo: Path) -> None:
    (repo / "loop.md").symlink_to(repo / "loop.md")
    content, _ = expand(repo, "@./loop.md")
    assert content == "<!-- Import failed: ./loop.md - Symlink loop -->"


def test_warnings_name_the_file_that_held_the_import(repo: Path) -> None:
    write(repo / "a.md", "@../../outside.md")
    main = write(repo / "QWEN.md", "@./a.md")
    result = process_imports("@./a.md", repo, current_file=main, processed={main})
    (warning,) = result.warnings
    assert warning.file == repo / "a.md"
    assert str(warning) == f"{repo / 'a.md'}: Import failed: ../../outside.md - Path traversal attempt"


def test_the_import_tree(repo: Path) -> None:
    write(repo / "a.md", "@./b.md @./c.md")
    write(repo / "b.md", "B")
    write(repo / "c.md", "C")
    main = write(repo / "QWEN.md", "@./a.md")
    tree = process_imports("@./a.md", repo, current_file=main).tree
    assert tree.path == str(main)
    assert [n.path for n in tree.imports] == [str(repo / "a.md")]
    assert [n.path for n in tree.imports[0].imports] == [str(repo / "b.md"), str(repo / "c.md")]


def test_validate_import_path(repo: Path) -> None:
    assert validate_import_path("./a.md", repo, [repo])
    assert validate_import_path(".", repo, [repo])
    assert not validate_import_path("../a.md", repo, [repo])
    assert not validate_import_path("https://example.com/a.md", repo, [repo])


# --- flat format ------------------------------------------------------------------


def test_flat_format_lists_each_file_once_root_first(repo: Path) -> None:
    write(repo / "a.md", "  A @./b.md  \n")
    write(repo / "b.md", "B @./a.md")
    write(repo / "c.md", "C")
    main = write(repo / "QWEN.md", "Root @./a.md @./c.md @./a.md @./missing.md")
    result = process_imports(main.read_text(), repo, current_file=main, import_format="flat")
    assert result.content == (
        f"--- File: {main} ---\nRoot @./a.md @./c.md @./a.md @./missing.md\n--- End of File: {main} ---\n\n"
        f"--- File: {repo / 'a.md'} ---\nA @./b.md\n--- End of File: {repo / 'a.md'} ---\n\n"
        f"--- File: {repo / 'b.md'} ---\nB @./a.md\n--- End of File: {repo / 'b.md'} ---\n\n"
        f"--- File: {repo / 'c.md'} ---\nC\n--- End of File: {repo / 'c.md'} ---"
    )
    assert [n.path for n in result.tree.imports] == [str(repo / "a.md"), str(repo / "c.md")]


def test_flat_format_reports_failures_and_skips_code(repo: Path) -> None:
    (repo / "dir").mkdir()
    main = write(repo / "QWEN.md", "`@./x.md` @./dir @../out.md")
    result = process_imports(main.read_text(), repo, current_file=main, import_format="flat")
    assert result.content == f"--- File: {main} ---\n`@./x.md` @./dir @../out.md\n--- End of File: {main} ---"
    assert [w.message for w in result.warnings] == [
        "Import failed: ./dir - Is a directory",
        "Import failed: ../out.md - Path traversal attempt",
    ]


def test_flat_format_without_a_current_file_uses_the_base_path(repo: Path) -> None:
    result = process_imports("text", repo, import_format="flat")
    assert result.content == f"--- File: {repo} ---\ntext\n--- End of File: {repo} ---"
