"""Which call a streamed tool-call fragment belongs to, with and without an ``index``."""

from __future__ import annotations

from app.core.llm.assembly import ReplyAssembler
from app.core.llm.types import ToolCallPiece


def _calls(*pieces: ToolCallPiece) -> list[tuple[str, str, str]]:
    assembler = ReplyAssembler()
    for piece in pieces:
        assembler.add(piece)
    return [(call.id, call.name, call.arguments) for call in assembler.message().tool_calls]


def test_indexed_fragments_join_by_index() -> None:
    assert _calls(
        ToolCallPiece(0, "a", "read_file", '{"pa'), ToolCallPiece(1, "b", "glob", "{}"), ToolCallPiece(0, None, None, 'th": 1}')
    ) == [("a", "read_file", '{"path": 1}'), ("b", "glob", "{}")]


def test_a_new_id_without_an_index_starts_a_new_call() -> None:
    assert _calls(ToolCallPiece(None, "a", "read_file", '{"x": 1}'), ToolCallPiece(None, "b", "read_file", '{"y": 2}')) == [
        ("a", "read_file", '{"x": 1}'),
        ("b", "read_file", '{"y": 2}'),
    ]


def test_an_indexless_fragment_without_an_id_continues_the_last_call() -> None:
    assert _calls(ToolCallPiece(None, "a", "glob", '{"pat'), ToolCallPiece(None, None, None, 'tern": "*"}'), ToolCallPiece(None, "a", None, "")) == [
        ("a", "glob", '{"pattern": "*"}')
    ]
