"""The rules of hand edits of the view: stable ids, drop/pin/restore/replace, replay, pinned parts through
micro-compaction, pruning and a summary, and what an edit costs of the cached prefix."""

from __future__ import annotations

from app.context.compaction.compose import compose_history
from app.context.compaction.micro import CLEARED, MicroSettings, micro_compact
from app.context.compaction.pairing import repair_tool_pairs
from app.context.compaction.pruning import prune_view
from app.core.request import RequestPart
from app.context.view_edits import PINNED_INTRO, ViewEditError, ViewEdits, cache_loss, part_id, range_ids, turn_ids, view_parts
from app.core.history import Message, ToolCall

import pytest


def _read(call_id: str, path: str, output: str) -> list[Message]:
    call = ToolCall(call_id, "read_file", f'{{"path": "{path}"}}')
    return [Message(role="assistant", content="", tool_calls=[call]), Message.tool_result(call, output)]


def _history() -> list[Message]:
    return [
        Message.user("fix the parser"),
        *_read("call_1", "big.log", "x" * 40_000),
        *_read("call_2", "parser.py", "def parse(): ..."),
        Message(role="assistant", content="Done."),
    ]


def test_ids_name_the_kind_and_depend_only_on_what_the_message_says() -> None:
    history = _history()
    ids = [part_id(m) for m in history]
    assert ids[0].startswith("msg-") and ids[2].startswith("tool-") and ids[1].startswith("reply-")
    assert len(set(ids)) == len(ids)
    # A resumed session rebuilds the messages from the record: same text, same id.
    again = [Message.from_dict(m.to_dict()) for m in history]
    assert [part_id(m) for m in again] == ids
    assert part_id(Message.user("<state_snapshot>x</state_snapshot>")).startswith("summary-")
    assert part_id(Message.user("<system-reminder>\n## Relevant memory\n- a")).startswith("memory-")


def test_a_dropped_part_is_a_placeholder_in_the_same_place_and_the_pairs_stay_valid() -> None:
    history = _history()
    edits = ViewEdits()
    big = part_id(history[2])
    edits.apply("drop", big)
    view, ids = edits.edit_view(history)
    assert len(view) == len(history) and ids[2] == big
    assert "x" * 100 not in view[2].content and big in view[2].content and view[2].tool_call_id == "call_1"
    assert history[2].content == "x" * 40_000, "the history keeps every byte"
    assert repair_tool_pairs(view).changed is False
    # Dropping the call drops its arguments too; the call id stays, its result still answers it.
    edits.apply("drop", part_id(history[3]))
    view, _ = edits.edit_view(history)
    assert view[3].tool_calls[0].id == "call_2" and view[3].tool_calls[0].arguments == "{}"
    edits.apply("restore", big)
    assert edits.edit_view(history)[0][2].content == "x" * 40_000


def test_drop_unpins_pin_restores_and_restore_undoes_a_rewrite() -> None:
    edits = ViewEdits()
    edits.apply("pin", "tool-1")
    edits.apply("drop", "tool-1")
    assert edits.state_of("tool-1") == "dropped" and "tool-1" not in edits.pinned
    edits.apply("pin", "tool-1")
    assert edits.state_of("tool-1") == "pinned" and "tool-1" not in edits.dropped
    edits.apply("unpin", "tool-1")
    assert edits.state_of("tool-1") == ""
    payload = edits.apply("replace", "summary-1", "the new summary")
    assert payload == {"action": "replace", "part": "summary-1", "text": "the new summary"}
    assert edits.state_of("summary-1") == "edited"
    edits.apply("restore", "summary-1")
    assert edits.empty
    with pytest.raises(ViewEditError, match="empty"):
        edits.apply("replace", "summary-1", "  \n")
    with pytest.raises(ViewEditError, match="unknown view edit 'delete'"):
        edits.apply("delete", "x")


def test_replay_in_record_order_skips_what_it_cannot_read() -> None:
    payloads = [
        {"action": "drop", "part": "tool-a"},
        {"action": "pin", "part": "msg-b"},
        None,
        {"action": "explode", "part": "msg-b"},
        {"action": "drop", "part": 7},
        {"action": "restore", "part": "tool-a"},
        {"action": "replace", "part": "summary-c", "text": "mine"},
    ]
    edits = ViewEdits.replay(payloads)
    assert edits.dropped == set() and edits.pinned == {"msg-b"} and edits.replaced == {"summary-c": "mine"}


def test_a_pinned_result_is_not_cleared_by_micro_compaction_nor_pruning() -> None:
    history = []
    for i in range(8):
        history += [Message.user(f"step {i}"), *_read(f"call_{i}", f"f{i}.py", f"content {i} " + "y" * 30_000)]
    history.append(Message(role="assistant", content="done"))
    edits = ViewEdits()
    pinned = part_id(history[2])  # the oldest result: the first to go
    edits.apply("pin", pinned)
    result = micro_compact(history, MicroSettings(keep_recent=2), force=True, keep=edits.is_pinned)
    assert result.messages[2].content == history[2].content
    assert result.messages[5].content == CLEARED, "the others are cleared as before"
    unpinned = micro_compact(history, MicroSettings(keep_recent=2), force=True)
    assert unpinned.messages[2].content == CLEARED, "without the pin it would have been"
    pruned = prune_view(history, 40_000, keep=frozenset({2})).messages
    assert pruned[2].content == history[2].content and pruned[5].content != history[5].content
    assert prune_view(history, 40_000).messages[2].content != history[2].content, "without the pin it would have been pruned"


def test_pinned_parts_are_re_attached_verbatim_after_a_summary_with_roles_alternating() -> None:
    history = _history()
    edits = ViewEdits()
    edits.apply("pin", part_id(history[4]))  # parser.py's content
    edits.apply("pin", part_id(history[0]))  # the first request
    kept = edits.pinned_to_keep(history)
    assert kept[0].content == PINNED_INTRO
    assert history[0] in kept and history[4] in kept, "the very messages: same text, same ids, still pinned"
    call_owner = kept[kept.index(history[4]) - 1]
    assert call_owner.role == "assistant" and call_owner.tool_calls[0].id == "call_2"
    composed = compose_history("<state_snapshot>s</state_snapshot>", [Message.user("next")], pinned=kept)
    speakers = ["user" if m.role in ("user", "tool") else "assistant" for m in composed]
    assert all(speakers[i] != speakers[i + 1] or composed[i + 1].role == "tool" for i in range(len(speakers) - 1))
    assert repair_tool_pairs(composed).changed is False
    assert ViewEdits().pinned_to_keep(history) == []


def test_what_an_edit_costs_is_the_cached_prefix_from_the_part_on() -> None:
    parts = [
        RequestPart("system", "section", "base", "t", "s", tokens=1_000),
        RequestPart("messages", "user", "user", "m1", "u", tokens=200, part_id="msg-1"),
        RequestPart("messages", "tool_result", "read_file result", "m2", "r", tokens=5_000, part_id="tool-2"),
        RequestPart("messages", "assistant", "assistant", "m3", "a", tokens=300, part_id="reply-3"),
    ]
    assert cache_loss(parts, 6_200, "tool-2") == 5_000
    assert cache_loss(parts, 6_500, "msg-1") == 5_500
    assert cache_loss(parts, 1_100, "tool-2") == 0, "past the cached prefix nothing was cached"
    assert cache_loss(parts, 6_500, "gone-9") == 0


def test_the_parts_listing_has_one_row_per_id_with_its_state() -> None:
    history = _history()
    edits = ViewEdits()
    edits.apply("drop", part_id(history[2]))
    rows = view_parts(history, edits)
    assert [r.id for r in rows] == [part_id(m) for m in history]
    assert rows[2].state == "dropped" and rows[2].name == "read_file result" and rows[2].chars == 40_000


def test_a_turn_runs_from_a_typed_message_to_the_next_and_a_range_takes_both_ends() -> None:
    history = [
        *_history(),
        Message.user("<system-reminder>\n## Relevant memory\n- db is staging</system-reminder>"),
        Message.user("now the lexer"),
        Message(role="assistant", content="On it."),
    ]
    ids = [part_id(m) for m in history]
    # The reminder is part of the turn before it; the next message the person typed starts a new one.
    assert turn_ids(history, ids[0]) == ids[:7]
    assert turn_ids(history, ids[7]) == ids[7:]
    assert turn_ids(history, "msg-00000000") == []
    assert range_ids(history, ids[5], ids[2]) == ids[2:6]
    assert range_ids(history, ids[2], "tool-00000000") == []
