"""The memory file format: parsing (never raising) and rendering."""

from __future__ import annotations

import pytest

from app.context.memory.document import (
    parse_frontmatter_block,
    parse_memory_text,
    render_memory,
    render_with_frontmatter,
)
from app.context.memory.paths import MemoryType


def test_parses_fields_and_trims_the_body() -> None:
    doc = parse_memory_text("---\nname: DB tests\ndescription: Never mock the database\ntype: feedback\n---\n\n  Use the real DB.\n\n")
    assert doc.type is MemoryType.FEEDBACK
    assert (doc.name, doc.title, doc.description, doc.body) == ("DB tests", "DB tests", "Never mock the database", "Use the real DB.")
    assert doc.problems == ()
    assert not doc.ignored


def test_crlf_is_normalised() -> None:
    doc = parse_memory_text("---\r\nname: A\r\ndescription: d\r\ntype: user\r\n---\r\nline one\r\nline two\r\n")
    assert doc.type is MemoryType.USER
    assert doc.body == "line one\nline two"


def test_a_leading_bom_is_accepted() -> None:
    assert parse_memory_text("\ufeff---\nname: A\ntype: user\n---\nx").type is MemoryType.USER


@pytest.mark.parametrize(
    ("fields", "title"),
    [("name: N\ntitle: T", "N"), ("title: T", "T"), ("", "reference")],
)
def test_title_falls_back_to_title_then_type(fields: str, title: str) -> None:
    doc = parse_memory_text(f"---\n{fields}\ntype: reference\n---\nbody")
    assert doc.title == title
    assert doc.description == ""


def test_unknown_type_is_ignored_with_a_reason() -> None:
    doc = parse_memory_text("---\nname: A\ntype: secrets\n---\nbody")
    assert doc.ignored
    assert "unknown type 'secrets'" in doc.problems[0]
    assert "user, feedback, project, reference" in doc.problems[0]


def test_missing_type_is_ignored_with_a_reason() -> None:
    doc = parse_memory_text("---\nname: A\ndescription: d\n---\nbody")
    assert doc.ignored
    assert doc.problems == ("the frontmatter has no type; the file is ignored",)


@pytest.mark.parametrize("text", ["", "   \n\n", "\ufeff"])
def test_empty_file(text: str) -> None:
    doc = parse_memory_text(text)
    assert doc.ignored and doc.problems == ("the file is empty",)


def test_no_frontmatter() -> None:
    doc = parse_memory_text("# Just notes\n\nno header here")
    assert doc.ignored
    assert doc.frontmatter_text is None
    assert doc.problems[0].startswith("no frontmatter")
    assert doc.body == "# Just notes\n\nno header here"


def test_unclosed_frontmatter_is_no_frontmatter() -> None:
    assert parse_memory_text("---\nname: A\ntype: user\nbody without a closing fence").ignored


def test_frontmatter_that_is_not_yaml_is_read_line_by_line() -> None:
    doc = parse_memory_text("---\nname: Deploys\ndescription: Rule: deploy on Tuesdays: never Fridays\ntype: project\n---\nx")
    assert doc.type is MemoryType.PROJECT
    assert doc.description == "Rule: deploy on Tuesdays: never Fridays"
    assert doc.problems == (
        "the frontmatter is not valid YAML (line 3: mapping values are not allowed here); it was read line by line",
    )


def test_frontmatter_that_is_not_a_mapping() -> None:
    doc = parse_memory_text("---\n- a\n- b\n---\nbody")
    assert doc.ignored
    assert "not a mapping" in doc.problems[0]


def test_yaml_values_quoted_or_not_text() -> None:
    doc = parse_memory_text('---\nname: "Quoted: yes"\ndescription: [a, b]\ntype: \'user\'\n---\n')
    assert doc.type is MemoryType.USER
    assert doc.name == "Quoted: yes"
    assert doc.description == ""
    assert "`description` is not text; it was ignored" in doc.problems


def test_plain_values_stay_text() -> None:
    fields, problems = parse_frontmatter_block("name: yes\ndescription: 2024\ntype: user")
    assert fields == {"name": "yes", "description": "2024", "type": "user"} and problems == []


def test_render_then_parse_round_trips() -> None:
    for name, description in [
        ("Plain", "Simple words"),
        ("yes", "no"),
        ("Colon: here", "A # not a comment"),
        ("- dash", "[brackets] {braces} 'quotes' \"double\""),
        ("多语言 名称", "説明 — em dash"),
    ]:
        text = render_memory(name=name, description=description, memory_type="feedback", body="  Body\n")
        doc = parse_memory_text(text)
        assert (doc.name, doc.description, doc.type, doc.body) == (name, description, MemoryType.FEEDBACK, "Body")
        assert doc.problems == ()


def test_render_keeps_fields_on_one_line_and_writes_valid_text() -> None:
    text = render_memory(name="a\nb", description="line one\nline two", memory_type="user", body="x \ud800")
    assert text.startswith("---\nname: a b\n")
    assert '"line one line two"' in text or "line one line two" in text
    text.encode("utf-8")  # the lone surrogate was replaced


def test_render_with_existing_frontmatter() -> None:
    assert render_with_frontmatter("name: A\ntype: user", "\nnew body\n") == "---\nname: A\ntype: user\n---\n\nnew body\n"
