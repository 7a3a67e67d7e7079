"""Property-based fuzzing of everything that reads text it did not write.

Each property runs with the fast, derandomized budget in ``make test`` and a large
random one in ``make soak`` (``tests.reliability.fuzzing``). The properties: never
an unhandled exception, never a read or write outside the allowed roots, and the
spec's invariants on what comes out.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.context.instructions.fscache import FsCache
from app.context.frontmatter import Frontmatter, FrontmatterError, read_frontmatter
from app.context.instructions.imports import find_imports, process_imports
from app.context.instructions.rules import load_rules
from app.context.memory.document import parse_memory_text, render_memory
from app.context.memory.index import MAX_INDEX_BYTES, MAX_INDEX_LINES, IndexLine, assemble_index, rebuild_index
from app.context.memory.index import (
    MAX_INDEX_FIELD_CHARS,
    MAX_INDEX_LINE_CHARS,
    encode_index_path_target,
    index_line,
    limit_index_line,
    sanitize_index_field,
)
from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryScope, MemoryType
from app.context.memory.paths import MemoryPaths
from app.context.memory.textunits import utf16_len
from app.context.skills.activation import InvalidGlob, SkillActivator, compile_pattern
from app.context.skills.model import Skill, SkillLevel
from app.context.skills.parse import ParsedSkill, SkillParseError, parse_skill_text
from app.core.history import Message, ToolCall
from app.core.llm.assembly import ReplyAssembler
from app.core.llm.openai_compat import _pieces
from app.core.session.reader import last_valid_record
from app.core.session.records import Record
from app.core.session.resume import load_session
from tests.reliability.fuzzing import BUDGETS, check, fuzzed

SECRET = "SECRET-OUTSIDE-THE-ROOT"
# Text with the characters parsers trip on: fences, colons, quotes, YAML indicators, controls, non-BMP.
TRICKY = st.text(alphabet=st.sampled_from(list("-:'\"\n\r\t #&*!|>[]{}@`.\\/ab\x00\x1b\u2028\ufeff\U0001f600")), max_size=120)
ANY_TEXT = st.one_of(st.text(max_size=300), TRICKY)


# -- frontmatter: memory, skills, rules ------------------------------------------------------------------


@st.composite
def frontmatter_files(draw: st.DrawFn) -> str:
    """Something that looks like a frontmatter file, often broken in some way."""
    fields = draw(st.dictionaries(st.sampled_from(["name", "description", "type", "paths", "allowedTools", "x"]), ANY_TEXT, max_size=5))
    lines = [f"{key}: {value}" for key, value in fields.items()]
    head = draw(st.sampled_from(["---\n", "---\r\n", "\ufeff---\n", "--- \n", ""]))
    close = draw(st.sampled_from(["\n---\n", "\n---", "\n--\n", "\n---\r\n", ""]))
    return head + "\n".join(lines) + close + draw(ANY_TEXT)


FILES = st.one_of(frontmatter_files(), ANY_TEXT)


@pytest.mark.parametrize("examples", BUDGETS)
def test_memory_frontmatter_parsing_never_raises(examples: int) -> None:
    @given(FILES)
    def prop(text: str) -> None:
        fuzzed()
        parsed = parse_memory_text(text)
        assert parsed.type is None or parsed.type.value in AUTO_MEMORY_TYPES
        assert isinstance(parsed.name, str) and isinstance(parsed.description, str)
        assert parsed.ignored == (parsed.type is None)

    check(prop, examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_a_rendered_memory_parses_back_to_what_was_written(examples: int) -> None:
    @given(ANY_TEXT, ANY_TEXT, st.sampled_from(list(MemoryType)), ANY_TEXT)
    def prop(name: str, description: str, kind: MemoryType, body: str) -> None:
        fuzzed()
        parsed = parse_memory_text(render_memory(name=name, description=description, memory_type=kind, body=body))
        assert parsed.type is kind and not parsed.problems
        assert parsed.name == " ".join(name.split()) and parsed.description == " ".join(description.split())
        assert parsed.body == body.replace("\r\n", "\n").strip()

    check(prop, examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_skill_parsing_gives_a_skill_or_a_skill_error(examples: int) -> None:
    @given(FILES, st.sampled_from(list(SkillLevel)))
    def prop(text: str, level: SkillLevel) -> None:
        fuzzed()
        try:
            parsed = parse_skill_text(text, Path("/project/.qwen/skills/x/SKILL.md"), level)
        except SkillParseError as exc:
            assert exc.message
            return
        assert isinstance(parsed, ParsedSkill) and parsed.body and parsed.skill.name

    check(prop, examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_rule_frontmatter_and_rule_loading_never_raise(examples: int, tmp_path: Path) -> None:
    rules = tmp_path / "project" / ".qwen" / "rules"
    rules.mkdir(parents=True)

    @given(st.lists(FILES, max_size=4))
    def prop(texts: list[str]) -> None:
        fuzzed()
        for old in rules.iterdir():
            old.unlink()
        for index, text in enumerate(texts):
            try:
                assert isinstance(read_frontmatter(text), Frontmatter)
            except FrontmatterError as exc:
                assert exc.line >= 1
            (rules / f"r{index}.md").write_bytes(text.encode("utf-8", "surrogatepass"))
        loaded = load_rules(tmp_path / "project")
        assert len(loaded.rules) + len(loaded.conditional) <= len(texts)

    check(prop, examples)


# -- @import ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("examples", BUDGETS)
def test_the_import_scanner_finds_only_well_formed_imports(examples: int) -> None:
    @given(st.one_of(st.text(max_size=200), TRICKY))
    def prop(text: str) -> None:
        fuzzed()
        for match in find_imports(text):
            assert text[match.start] == "@" and (match.start == 0 or text[match.start - 1] in " \t\n\r")
            assert match.path == text[match.start + 1 : match.end] and match.path
            assert not any(c in match.path for c in " \t\n\r")
            assert match.end == len(text) or text[match.end] in " \t\n\r"
            assert match.path[0] in "./" or match.path[0].isascii() and match.path[0].isalpha()

    check(prop, examples)


class _RecordingFs(FsCache):
    """The loader's filesystem, noting the real path of every file it reads."""

    def __init__(self) -> None:
        super().__init__()
        self.read_paths: list[str] = []

    def read(self, path):  # type: ignore[no-untyped-def]
        self.read_paths.append(self.real(path))
        return super().read(path)


def _import_project(tmp_path: Path) -> tuple[Path, list[str]]:
    """A project with nested imports, a cycle, links in and out, and a secret next to it."""
    root, outside = tmp_path / "project", tmp_path / "outside"
    (root / ".git").mkdir(parents=True)
    (root / "docs" / "deep").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text(f"{SECRET}\n@../project/docs/a.md\n", encoding="utf-8")
    (root / "docs" / "a.md").write_text("A imports @b.md and @../docs/deep/c.md\n", encoding="utf-8")
    (root / "docs" / "b.md").write_text("B imports @a.md (a cycle) and @../../outside/secret.md\n", encoding="utf-8")
    (root / "docs" / "deep" / "c.md").write_text("C `@not-an-import.md`\n```\n@also-not.md\n```\n@/etc/hostname\n", encoding="utf-8")
    (root / "docs" / "out.md").symlink_to(outside / "secret.md")
    (root / "docs" / "outdir").symlink_to(outside, target_is_directory=True)
    (root / "docs" / "loop.md").symlink_to(root / "docs" / "loop.md")
    pool = [
        "docs/a.md", "./docs/b.md", "docs/deep/c.md", "docs/out.md", "docs/outdir/secret.md", "docs/loop.md",
        "../outside/secret.md", str(outside / "secret.md"), "/etc/hostname", "/etc/passwd", "docs/../../outside/secret.md",
        "file:///etc/passwd", "http://example.invalid/x.md", "docs", "nonexistent.md", "docs/a.md/..", "~/.ssh/id_rsa",
    ]  # fmt: skip
    return root, pool


@pytest.mark.parametrize("examples", BUDGETS)
def test_import_processing_never_reads_outside_the_project(examples: int, tmp_path: Path) -> None:
    root, pool = _import_project(tmp_path)
    real_root = os.path.realpath(root)
    piece = st.one_of(st.sampled_from(pool).map(lambda p: f"@{p}"), st.sampled_from(["\n", " ", "`", "```\n", "text "]), TRICKY)

    @given(st.lists(piece, max_size=12), st.sampled_from(["tree", "flat"]), st.integers(min_value=0, max_value=6))
    def prop(pieces: list[str], import_format: str, depth: int) -> None:
        fuzzed()
        fs = _RecordingFs()
        result = process_imports(" ".join(pieces), root, current_file=root / "QWEN.md", project_root=root, import_format=import_format, max_depth=depth, fs=fs)  # type: ignore[arg-type]
        assert SECRET not in result.content
        outside = [p for p in fs.read_paths if not (p == real_root or p.startswith(real_root + os.sep))]
        assert outside == [], outside

    check(prop, examples)


# -- the memory index -------------------------------------------------------------------------------------------

CONTROL = re.compile(r"[\u0000-\u001f\u007f-\u009f]")
INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
FIELD_TEXT = st.one_of(st.text(max_size=400), TRICKY, st.text(alphabet=st.sampled_from(list("`]([)\u202e\u200b\x1b\n ")), max_size=200))


@pytest.mark.parametrize("examples", BUDGETS)
def test_index_fields_are_sanitized_and_lines_stay_within_the_limit(examples: int) -> None:
    @given(FIELD_TEXT, FIELD_TEXT, st.text(max_size=300), st.sampled_from(list(AUTO_MEMORY_TYPES)))
    def prop(title: str, description: str, rel_path: str, fallback: str) -> None:
        fuzzed()
        for field_text in (title, description):
            clean = sanitize_index_field(field_text)
            assert not CONTROL.search(clean) and not INVISIBLE.search(clean), repr(clean)
            assert "`" not in clean and "](" not in clean and "  " not in clean and clean == clean.strip()
            assert utf16_len(clean) <= MAX_INDEX_FIELD_CHARS
        line = limit_index_line(index_line(title, rel_path, description, fallback))
        assert utf16_len(line) <= MAX_INDEX_LINE_CHARS and "\n" not in line and line.startswith("- [")

    check(prop, examples)


# File names as the OS hands them over: any bytes but "/" and NUL, undecodable ones as surrogate escapes.
NAME_BYTES = st.binary(min_size=1, max_size=60).filter(lambda b: b"/" not in b and b"\0" not in b)
REL_PATHS = st.one_of(st.text(max_size=200), st.lists(NAME_BYTES, min_size=1, max_size=4).map(lambda parts: b"/".join(parts).decode("utf-8", "surrogateescape")))


@pytest.mark.parametrize("examples", BUDGETS)
def test_decoding_an_encoded_index_path_gives_the_path_back(examples: int) -> None:
    @given(REL_PATHS)
    def prop(rel_path: str) -> None:
        fuzzed()
        encoded = encode_index_path_target(rel_path)
        assert re.fullmatch(r"[A-Za-z0-9._~/%-]*", encoded)
        assert urllib.parse.unquote_to_bytes(encoded).decode("utf-8", "surrogateescape") == rel_path[:120]

    check(prop, examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_the_assembled_index_keeps_the_newest_lines_within_the_limits(examples: int) -> None:
    line = st.builds(IndexLine, st.text(min_size=1, max_size=150).map(lambda t: t.replace("\n", " ")), st.floats(0, 2e9, allow_nan=False))

    @given(st.lists(line, max_size=260))
    def prop(lines: list[IndexLine]) -> None:
        fuzzed()
        index = assemble_index(lines)
        body = index.text.split("\n\n> WARNING")[0]
        assert index.kept <= MAX_INDEX_LINES and utf16_len(body) <= MAX_INDEX_BYTES
        assert index.kept + len(index.dropped) == len(lines) and index.cut == ("> WARNING" in index.text)
        kept = [l for l in lines if l not in index.dropped]
        if index.dropped and kept:
            assert max(d.mtime for d in index.dropped) <= min(k.mtime for k in kept), "only the oldest are left out"

    check(prop, examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_rebuilding_an_index_from_hostile_files_writes_only_its_index(examples: int, tmp_path: Path) -> None:
    base = tmp_path / "data"
    root = base / "memory"
    paths = MemoryPaths(project_root=root, user_root=base / "user", team_root=tmp_path / "repo" / ".qwen" / "team-memory", workspace_root=tmp_path / "repo")
    memory_file = st.tuples(NAME_BYTES, st.sampled_from(["user", "feedback", "project", "reference", "pinned", "other"]), FILES)

    @given(st.lists(memory_file, max_size=8))
    def prop(files: list[tuple[bytes, str, str]]) -> None:
        fuzzed()
        if base.exists():
            for folder, _dirs, names in os.walk(base, topdown=False):
                for name in names:
                    os.unlink(os.path.join(folder, name))
        written = set()
        for name, folder, text in files:
            path = root / folder / (name.decode("utf-8", "surrogateescape") + ".md")
            assume(len(os.fsencode(path.name)) < 250)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8", "surrogatepass"))
            written.add(str(path))
        result = rebuild_index(paths, MemoryScope.PROJECT)
        lines = result.index.text.split("\n\n> WARNING")[0].split("\n") if result.index.text else []
        assert len(lines) <= MAX_INDEX_LINES and all(utf16_len(l) <= MAX_INDEX_LINE_CHARS for l in lines)
        now = {os.path.join(f, n) for f, _d, names in os.walk(base) for n in names}
        assert now - written <= {str(root / "MEMORY.md")}, "only the index was written"

    check(prop, examples)


# -- glob activation -------------------------------------------------------------------------------------------

GLOB_PIECES = st.sampled_from(["a", "b", "*", "?", "**", "/", "[ab]", "[!a]", "{a,b}", ".", "\\", "[", "]", "{", "}", ",", "..", "~"])


def _reference_match(pattern: str, path: str) -> bool:
    """Glob semantics by plain recursion, for patterns of a, b, *, ? and / (``**`` only as a whole segment)."""
    segments = pattern.split("/")
    tokens: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            tokens.append("REST" if last else "DIRS")
            continue
        tokens.extend(["STAR" if c == "*" else "ONE" if c == "?" else c for c in re.sub(r"\*+", "*", segment)])
        if not last:
            tokens.append("/")

    @lru_cache(maxsize=None)
    def match(t: int, s: int) -> bool:
        if t == len(tokens):
            return s == len(path)
        token = tokens[t]
        if token == "REST":
            return True
        if token == "DIRS":
            if match(t + 1, s):
                return True
            slash = path.find("/", s)
            return slash > s and match(t, slash + 1)
        if token == "STAR":
            end = s
            while True:
                if match(t + 1, end):
                    return True
                if end == len(path) or path[end] == "/":
                    return False
                end += 1
        if s == len(path):
            return False
        if token == "ONE":
            return path[s] != "/" and match(t + 1, s + 1)
        return path[s] == token and match(t + 1, s + 1)

    return match(0, 0)


@pytest.mark.parametrize("examples", BUDGETS)
def test_globs_match_exactly_what_plain_recursion_matches(examples: int) -> None:
    simple = st.lists(st.sampled_from(["a", "b", "*", "?", "/", "**/", "/**", "**"]), max_size=12).map("".join)

    @given(simple, st.text(alphabet="ab/", max_size=14))
    def prop(pattern: str, path: str) -> None:
        fuzzed()
        assume(not pattern.startswith("/") and "//" not in pattern and not pattern.startswith("./"))
        assert (compile_pattern(pattern).fullmatch(path) is not None) == _reference_match(pattern, path), compile_pattern(pattern).pattern

    check(prop, examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_glob_activation_never_raises_and_never_wakes_on_paths_outside_the_project(examples: int) -> None:
    root = "/work/project"
    paths = st.one_of(st.text(max_size=60), st.lists(st.sampled_from(["a", "b.md", "..", ".", "", "~", "src", "/", "x/../.."]), max_size=6).map("/".join))

    @given(st.lists(st.lists(GLOB_PIECES, min_size=1, max_size=12).map("".join), min_size=1, max_size=4), st.lists(paths, max_size=6))
    def prop(patterns: list[str], touched: list[str]) -> None:
        fuzzed()
        for pattern in patterns:
            try:
                compile_pattern(pattern)
            except InvalidGlob:
                pass
        skill = Skill(name="s", description="d", level=SkillLevel.PROJECT, path=Path(root, ".qwen/skills/s/SKILL.md"), paths=tuple(patterns))
        activator = SkillActivator(root, [skill])
        for path in touched:
            woken = activator.observe_paths([path])
            if "\x00" in path:
                continue  # no file has such a name; only that it raised nothing counts
            absolute = os.path.normpath(os.path.join(root, os.path.expanduser(path))) if path else root
            if not absolute.startswith(root + "/"):
                assert woken == [], (path, patterns)

    check(prop, examples)


@pytest.mark.timeout(20)
def test_glob_matching_stays_fast_on_pathological_patterns() -> None:
    # Deterministic, not a property: a timeout inside hypothesis would only start it shrinking,
    # re-running slow examples with no timeout left. Each of these took minutes with backtracking.
    for unit in ("*a", "?*a", "a*?", "**/a/", "**/a*/"):
        for repeats in (8, 16, 32):
            regex = compile_pattern(unit * repeats + "b")
            for path in ("a" * 120, "a/" * 60, "ab" * 60 + "a"):
                assert regex.fullmatch(path) is None  # no "b" at the end: where backtracking explodes


# -- the session record -----------------------------------------------------------------------------------------


def _record(index: int, content: str) -> bytes:
    message = Message.user(content) if index % 2 == 0 else Message(role="assistant", content=content, tool_calls=[ToolCall(f"c{index}", "read_file", content)] if index % 3 == 0 else [])
    record = Record(uuid=f"uuid-{index:04d}", parent_uuid=None, session_id="s", timestamp="2026-01-01T00:00:00.000Z", type="user" if index % 2 == 0 else "assistant", cwd="/w", version="t", message=message)
    return record.to_json_line().encode("utf-8")


@st.composite
def session_files(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """A session file of valid records, garbage lines and torn writes, and the uuids of the valid ones, in order."""
    parts: list[bytes] = []
    valid: list[str] = []
    for index in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["valid", "valid", "garbage", "torn", "blank"]))
        line = _record(index, draw(st.text(max_size=60)))
        if kind == "valid":
            parts.append(line)
            valid.append(f"uuid-{index:04d}")
        elif kind == "garbage":
            parts.append(draw(st.binary(max_size=80)).replace(b"\n", b" ") + b"\n")
        elif kind == "torn":  # a write cut short, then the next process started a new line
            parts.append(line[: draw(st.integers(1, len(line) - 3))] + b"\n")
        else:
            parts.append(draw(st.sampled_from([b"\n", b"  \n", b"\r\n"])))
    if draw(st.booleans()):  # the last write torn by a crash: no newline at all
        line = _record(99, draw(st.text(max_size=60)))
        parts.append(line[: draw(st.integers(1, len(line) - 3))])
    return b"".join(parts), valid


@pytest.mark.parametrize("examples", BUDGETS)
def test_loading_a_damaged_session_never_raises_and_keeps_every_valid_line(examples: int, tmp_path: Path) -> None:
    path = tmp_path / "00000000-0000-4000-8000-000000000000.jsonl"

    @given(session_files())
    def prop(case: tuple[bytes, list[str]]) -> None:
        fuzzed()
        data, valid = case
        path.write_bytes(data)
        loaded = load_session(path)
        assert [r.uuid for r in loaded.records] == valid
        last = last_valid_record(path)
        assert (last.uuid if last else None) == (valid[-1] if valid else None)

    check(prop, examples)


@pytest.mark.parametrize("examples", BUDGETS)
def test_loading_random_bytes_never_raises(examples: int, tmp_path: Path) -> None:
    path = tmp_path / "00000000-0000-4000-8000-000000000001.jsonl"

    @given(st.binary(max_size=2_000))
    def prop(data: bytes) -> None:
        fuzzed()
        path.write_bytes(data)
        load_session(path)
        last_valid_record(path)

    check(prop, examples)


# -- the stream assembler ----------------------------------------------------------------------------------------


@st.composite
def streamed_calls(draw: st.DrawFn) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """SSE chunks carrying tool calls cut into fragments and interleaved, plus the calls and the text they carry."""
    calls = draw(st.lists(st.tuples(st.sampled_from(["read_file", "edit", "x"]), st.text(max_size=80)), min_size=0, max_size=4))
    queues = []
    for index, (name, arguments) in enumerate(calls):
        cuts = sorted(draw(st.lists(st.integers(0, len(arguments)), max_size=6)))
        pieces = [arguments[a:b] for a, b in zip([0, *cuts], [*cuts, len(arguments)])]
        first = {"index": index, "id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": pieces[0]}}
        queues.append([first] + [{"index": index, "function": {"arguments": p}} for p in pieces[1:]])
    text = draw(st.lists(st.text(max_size=20), max_size=4))
    order = draw(st.permutations([i for i, q in enumerate(queues) for _ in q] + [-1] * len(text)))
    chunks, positions = [], [0] * len(queues)
    for who in order:
        if who == -1:
            chunks.append({"choices": [{"index": 0, "delta": {"content": text.pop(0)}, "finish_reason": None}]})
        else:
            chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [queues[who][positions[who]]]}, "finish_reason": None}]})
            positions[who] += 1
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})
    expected = [(f"call_{i}", name, arguments) for i, (name, arguments) in enumerate(calls)]
    return chunks, expected


@pytest.mark.parametrize("examples", BUDGETS)
def test_tool_call_fragments_reassemble_exactly(examples: int) -> None:
    base = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}

    @given(streamed_calls())
    def prop(case: tuple[list[dict], list[tuple[str, str, str]]]) -> None:
        fuzzed()
        chunks, expected = case
        assembler = ReplyAssembler()
        text = []
        for chunk in chunks:
            for delta in chunk["choices"]:
                text.append(delta["delta"].get("content") or "")
            for piece in _pieces({**base, **chunk}):
                assembler.add(piece)
        message = assembler.message()
        assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == expected
        assert message.content == "".join(text)
        assert assembler.finish_reason == "tool_calls" and assembler.usage is not None

    check(prop, examples)
