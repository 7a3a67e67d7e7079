"""The one frontmatter reader, on real-world headers; and what the three old parsers said.

Each row holds the text, the answer now (strict and lenient), and in ``was`` what the
parsers before app/context/frontmatter.py answered for the same text (run at commit
3a951b5: rules = instructions/frontmatter.split_frontmatter, memory =
memory/document.parse_memory_text, skills = skills/parse.parse_skill_text).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.context.frontmatter import FrontmatterError, FrontmatterProblem, read_block, read_frontmatter
from app.context.instructions.rules import load_rules, rules_dir
from app.context.memory.document import parse_memory_text
from app.context.memory.paths import MemoryType
from app.context.skills.model import SkillLevel
from app.context.skills.parse import SkillParseError, parse_skill_text

REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    data: dict[str, Any] | None  # strict mode's fields; None when strict mode raises
    body: str
    error: tuple[FrontmatterProblem, int] | None = None  # strict mode's error: kind, line
    lenient: dict[str, Any] | None = None  # lenient mode's fields when they differ from ``data``
    was: str = ""


CASES = [
    Case(
        "qwen-code-skill",
        "---\nname: review\ndescription: Review a diff\nallowedTools:\n  - read_file\n  - run_shell_command(git diff *)\n---\n\nSteps.\n",
        {"name": "review", "description": "Review a diff", "allowedTools": ["read_file", "run_shell_command(git diff *)"]},
        "\nSteps.\n",
        was="all three agreed",
    ),
    Case(
        "claude-code-skill",
        "---\nname: pdf\ndescription: Extract text from PDFs. Use when the user mentions PDFs.\n"
        "allowed-tools: Read, Grep\nmetadata:\n  version: 1.0\n---\n# PDF\n",
        {
            "name": "pdf",
            "description": "Extract text from PDFs. Use when the user mentions PDFs.",
            "allowed-tools": "Read, Grep",
            "metadata": {"version": 1.0},
        },
        "# PDF\n",
        was="all three agreed",
    ),
    Case(
        "rule-with-paths-globs",
        '---\ndescription: API rules\npaths:\n  - "src/api/**/*.ts"\n  - tests/**\n---\nUse zod.\n',
        {"description": "API rules", "paths": ["src/api/**/*.ts", "tests/**"]},
        "Use zod.\n",
        was="all three agreed",
    ),
    Case(
        "memory-file",
        "---\nname: DB tests\ndescription: Never mock the database\ntype: feedback\n---\n\nUse the real DB.\n",
        {"name": "DB tests", "description": "Never mock the database", "type": "feedback"},
        "\nUse the real DB.\n",
        was="all three agreed",
    ),
    Case(
        "crlf",
        "---\r\nname: a\r\ndescription: d\r\ntype: user\r\n---\r\nline one\r\nline two\r\n",
        {"name": "a", "description": "d", "type": "user"},
        "line one\nline two\n",
        was="rules kept CRLF in the body; memory and skills read LF",
    ),
    Case(
        "bom",
        "\ufeff---\nname: a\ndescription: d\ntype: user\n---\nbody\n",
        {"name": "a", "description": "d", "type": "user"},
        "body\n",
        was="rules saw no header (the BOM and the header went into the prompt as body); memory and skills read it",
    ),
    Case(
        "dashes-inside-the-body",
        "---\nname: a\ndescription: d\ntype: user\n---\nintro\n---\nmore\n",
        {"name": "a", "description": "d", "type": "user"},
        "intro\n---\nmore\n",
        was="all three agreed",
    ),
    Case(
        "unterminated-header",
        "---\nname: a\ndescription: d\nbody without a closing fence\n",
        None,
        "---\nname: a\ndescription: d\nbody without a closing fence\n",
        error=(FrontmatterProblem.UNCLOSED, 1),
        lenient={},
        was="rules: error at line 1; memory: 'no frontmatter'; skills: 'missing YAML frontmatter'",
    ),
    Case(
        "four-dash-closing-line",
        "---\nname: a\ndescription: d\ntype: user\n----\nbody\n",
        None,
        "---\nname: a\ndescription: d\ntype: user\n----\nbody\n",
        error=(FrontmatterProblem.UNCLOSED, 1),
        lenient={},
        was="rules and skills: unclosed; memory closed the header there and read the body as '-\\nbody'",
    ),
    Case(
        "tab-after-colon",
        "---\nname: a\ndescription: d\ntype:\tuser\n---\nbody\n",
        {"name": "a", "description": "d", "type": "user"},
        "body\n",
        was="rules: YAML error at line 4 (pure-Python loader); memory and skills read it",
    ),
    Case(
        "yaml-error-colon-in-a-description",
        "---\nname: a\ndescription: Rule: deploy on Tuesdays: never Fridays\ntype: project\n---\nbody\n",
        None,
        "body\n",
        error=(FrontmatterProblem.YAML, 3),
        lenient={"name": "a", "description": "Rule: deploy on Tuesdays: never Fridays", "type": "project"},
        was="rules and skills: error at line 3 (in two wordings); memory: read line by line, a problem noted",
    ),
    Case(
        "header-that-is-a-list",
        "---\n- a\n- b\n---\nbody\n",
        None,
        "body\n",
        error=(FrontmatterProblem.NOT_MAPPING, 2),
        lenient={},
        was="all three refused it (in three wordings)",
    ),
    Case(
        "duplicate-key",
        "---\nname: a\ndescription: first\ndescription: second\ntype: user\n---\nbody\n",
        None,
        "body\n",
        error=(FrontmatterProblem.DUPLICATE_KEY, 4),
        lenient={"name": "a", "description": "second", "type": "user"},
        was="all three silently kept 'second'",
    ),
    Case(
        "empty-header",
        "---\n---\nbody\n",
        {},
        "body\n",
        was="rules: empty mapping; memory: 'no frontmatter'; skills: 'missing YAML frontmatter'",
    ),
    Case(
        "no-header",
        "# Notes\n\n---\nnot a header\n",
        {},
        "# Notes\n\n---\nnot a header\n",
        was="all three agreed",
    ),
    Case(
        "yes-and-a-number",
        "---\nname: yes\ndescription: 2024\ntype: user\n---\nbody\n",
        {"name": True, "description": 2024, "type": "user"},
        "body\n",
        was="rules and skills: YAML's True and 2024; memory: the text 'yes', '2024' (memory still does, as a field rule)",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_strict_mode(case: Case) -> None:
    if case.error is None:
        header = read_frontmatter(case.text, path="notes/x.md")
        assert (header.data, header.body) == (case.data, case.body)
        return
    with pytest.raises(FrontmatterError) as caught:
        read_frontmatter(case.text, path="notes/x.md")
    assert (caught.value.kind, caught.value.line) == case.error
    assert str(caught.value).startswith(f"notes/x.md, line {case.error[1]}: ")


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_lenient_mode_reads_what_it_can_and_keeps_the_error(case: Case) -> None:
    header = read_frontmatter(case.text, strict=False)
    expected = case.data if case.error is None else case.lenient
    assert (header.data, header.body) == (expected, case.body)
    assert [(p.kind, p.line) for p in header.problems] == ([case.error] if case.error else [])


def test_an_error_at_the_end_of_the_block_is_shown_where_it_began() -> None:
    with pytest.raises(FrontmatterError) as caught:
        read_frontmatter("---\ndescription: ok\npaths: [unclosed\n---\nBody\n")
    assert caught.value.line == 3 and caught.value.column == 8
    assert caught.value.message == "invalid YAML in frontmatter: expected ',' or ']', but got '<stream end>'"


def test_key_lines_and_the_raw_block() -> None:
    header = read_frontmatter("---\r\nname: a\r\n# note\r\npaths:\r\n  - x\r\n---\r\nbody")
    assert header.key_lines == {"name": 2, "paths": 4}
    assert header.block == "name: a\n# note\npaths:\n  - x" and header.has_header
    assert read_block("name: a").data == {"name": "a"}
    assert not read_frontmatter("body").has_header


# -- the three callers, each keeping its own field rules -----------------------------------------------


def test_memory_reads_the_shared_answers() -> None:
    crlf = parse_memory_text(CASES[4].text)
    assert (crlf.type, crlf.body, crlf.problems) == (MemoryType.USER, "line one\nline two", ())
    empty = parse_memory_text("---\n---\nbody\n")
    assert empty.problems == ("the frontmatter has no type; the file is ignored",)
    unclosed = parse_memory_text(CASES[7].text)
    assert unclosed.ignored and unclosed.problems[0].startswith("no frontmatter (the '---' on line 1 is never closed)")
    twice = parse_memory_text("---\nname: a\ndescription: first\ndescription: second\ntype: user\n---\nbody\n")
    assert twice.description == "second"
    assert twice.problems == ("'description' is given twice in the frontmatter (lines 3 and 4); the last value is used",)
    listed = parse_memory_text("---\n- a\n---\nbody\n")
    assert listed.problems[0] == "the frontmatter is not a mapping of keys to values (line 2)"
    plain = parse_memory_text("---\nname: yes\ndescription: 2024\ntype: user\n---\nbody\n")
    assert (plain.name, plain.description) == ("yes", "2024")


def _skill(text: str) -> str:
    try:
        return parse_skill_text(text, Path("/skills/a/SKILL.md"), SkillLevel.USER).skill.description
    except SkillParseError as exc:
        return exc.message


def test_skills_read_the_shared_answers() -> None:
    assert _skill("\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n") == "d"
    assert _skill("---\nname: a\ndescription: one\ndescription: two\n---\nbody\n") == (
        "Invalid format: 'description' is given twice in the frontmatter (lines 3 and 4)"
    )
    assert _skill("---\n---\nbody\n") == 'Missing "name" in frontmatter'
    assert _skill("---\nname: a\ndescription: d\n----\nbody\n") == "Invalid format: missing YAML frontmatter"
    assert _skill(CASES[10].text) == "invalid YAML in frontmatter at line 3, column 18: mapping values are not allowed here"


def test_rules_read_the_shared_answers(tmp_path: Path) -> None:
    folder = rules_dir(tmp_path)
    folder.mkdir(parents=True)
    (folder / "a-bom.md").write_text("\ufeff---\npaths:\n  - src/**\n---\nScoped.\n", encoding="utf-8")
    (folder / "b-twice.md").write_text("---\npaths: [a]\npaths: [b]\n---\nBody\n", encoding="utf-8")
    result = load_rules(tmp_path)
    assert [(r.name, r.globs, r.content) for r in result.conditional] == [("a-bom.md", ("src/**",), "Scoped.")]
    assert result.problems == [
        "Skipped rule .qwen/rules/b-twice.md: malformed frontmatter at line 3: 'paths' is given twice in the frontmatter (lines 2 and 3)"
    ]


def test_a_plain_header_is_read_without_importing_yaml() -> None:
    # A fresh interpreter: this one has imported yaml long ago.
    code = (
        "import sys\n"
        "from app.context.frontmatter import read_frontmatter\n"
        "from app.context.memory.document import parse_memory_text\n"
        "h = read_frontmatter('---\\nname: a\\n\\n# why\\nallowedTools:\\n  - read_file\\n---\\nbody')\n"
        "assert h.data == {'name': 'a', 'allowedTools': ['read_file']}, h.data\n"
        "assert parse_memory_text('---\\nname: A\\ndescription: d\\ntype: user\\n---\\nx').problems == ()\n"
        "print('yaml' in sys.modules)\n"
        "read_frontmatter('---\\nn: 1\\n---\\n')\n"
        "print('yaml' in sys.modules)\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert shown.stdout.split() == ["False", "True"]  # the control: a number needs YAML, and then it is imported


def test_a_huge_failing_header_is_not_read_again_by_the_slow_loader() -> None:
    # The attack: a header of ~100 KB that fails at its end. The pure-Python loader (about 20x slower
    # than libyaml) would re-read all of it just to word the error; libyaml's own words are kept.
    block = "".join(f"k{i}: v\n" for i in range(12_000)) + "bad: [x\n"
    header = read_frontmatter("---\n" + block + "---\nbody", strict=False)
    assert header.data["k0"] == "v" and header.body == "body"  # the program answered, line by line
    assert header.problems[0].message == "invalid YAML in frontmatter: did not find expected ',' or ']'"
    small = read_frontmatter("---\nbad: [x\n---\nbody", strict=False)
    assert small.problems[0].message == "invalid YAML in frontmatter: expected ',' or ']', but got '<stream end>'"
