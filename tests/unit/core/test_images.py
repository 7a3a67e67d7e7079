"""Images in the history: recognising them, recording them, sending them, weighing them, standing in for them."""

from __future__ import annotations

import base64
import math

from app.context.compaction.attachments import IMAGES_INTRO, collect_attachments, recent_images
from app.context.compaction.micro import CLEARED, MicroSettings, micro_compact
from app.context.compaction.pruning import PLACEHOLDER, prune_view
from app.context.compaction.slimming import tool_image_count, without_images
from app.core.request import message_parts, message_tokens
from app.core.history import TOOL_IMAGES_HEADER, Message, ToolCall, wire_messages
from app.core.images import DEFAULT_MIME, IMAGE_TOKEN_ESTIMATE, ImagePart, sanitize_mime, sniff_image_mime
from app.core.llm.models import takes_images

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20


def _image(source: str = "read_file a.png") -> ImagePart:
    return ImagePart.from_bytes(PNG, "image/png", source=source)


def _tool_result(call_id: str, *images: ImagePart) -> Message:
    return Message.tool_result(ToolCall(call_id, "read_file", '{"path": "a.png"}'), "a.png is a PNG image", images=list(images))


def test_the_four_image_types_are_recognised_by_their_first_bytes() -> None:
    assert sniff_image_mime(PNG) == "image/png"
    assert sniff_image_mime(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert sniff_image_mime(b"GIF89a....") == sniff_image_mime(b"GIF87a....") == "image/gif"
    assert sniff_image_mime(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert sniff_image_mime(b"RIFF\x00\x00\x00\x00WAVEfmt ") is None
    assert sniff_image_mime(b"\x7fELF\x02\x01") is None
    assert sniff_image_mime(b"# a png in markdown: \x89PNG") is None


def test_mime_types_are_sanitized_for_the_placeholder_as_the_spec_says() -> None:
    assert sanitize_mime("image/png\r\n\tx") == "image/png x"
    assert sanitize_mime(" [image/png] ") == "image/png"
    assert sanitize_mime("") == sanitize_mime("[]") == DEFAULT_MIME
    assert len(sanitize_mime("a" * 500)) == 128
    assert ImagePart("image/\n[png]", "AAAA").placeholder() == "[image: image/ png]"


def test_an_image_knows_its_size_and_survives_the_record() -> None:
    image = _image()
    assert image.size == len(PNG)
    assert image.data_url() == "data:image/png;base64," + base64.b64encode(PNG).decode()
    message = _tool_result("c1", image)
    again = Message.from_dict(message.to_dict())
    assert again.images == [image] and again.content == message.content


def test_a_record_with_broken_image_entries_keeps_the_message_and_the_good_images() -> None:
    data = _tool_result("c1", _image()).to_dict()
    data["images"] += [{"mime": "image/png"}, "junk", {"mime": 3, "data": "x"}, {"mime": "image/png", "data": ""}]
    assert Message.from_dict(data).images == [_image()]


def test_user_images_go_as_content_parts() -> None:
    wire = wire_messages([Message.user("what is this?", [_image()])])
    assert wire == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": _image().data_url()}}],
        }
    ]


def test_tool_images_follow_their_run_of_results_in_one_user_message() -> None:
    calls = [ToolCall("c1", "read_file", "{}"), ToolCall("c2", "read_file", "{}")]
    messages = [
        Message.user("look"),
        Message(role="assistant", tool_calls=calls),
        _tool_result("c1", _image("read_file a.png")),
        _tool_result("c2", _image("read_file b.png")),
        Message(role="assistant", content="two pictures"),
    ]
    wire = wire_messages(messages)
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "tool", "user", "assistant"]
    assert wire[2]["content"] == "a.png is a PNG image"  # tool messages stay text
    parts = wire[4]["content"]
    assert parts[0] == {"type": "text", "text": TOOL_IMAGES_HEADER}
    assert [p["type"] for p in parts[1:]] == ["text", "image_url", "text", "image_url"]
    assert parts[1]["text"] == "From read_file a.png (call c1):" and parts[3]["text"] == "From read_file b.png (call c2):"


def test_tool_images_at_the_end_of_the_history_still_go_out() -> None:
    wire = wire_messages([Message(role="assistant", tool_calls=[ToolCall("c1", "read_file", "{}")]), _tool_result("c1", _image())])
    assert [m["role"] for m in wire] == ["assistant", "tool", "user"]


def test_a_history_without_images_is_sent_as_before() -> None:
    messages = [Message.user("hi"), Message(role="assistant", content="hello")]
    assert wire_messages(messages) == [m.to_openai() for m in messages]


def test_images_are_sent_only_to_models_known_to_take_them_unless_settings_say() -> None:
    for name in ("qwen-vl-max", "qwen2.5-vl-72b-instruct", "qwen3-vl-plus", "gpt-4o-mini", "gpt-5", "claude-sonnet-4", "gemini-2.5-pro", "llava:13b"):
        assert takes_images(name), name
    for name in ("qwen3-coder-plus", "deepseek-chat", "fake-model", ""):
        assert not takes_images(name), name
    assert takes_images("my-local-model", True) and not takes_images("gpt-4o", False)


def test_an_image_weighs_the_fixed_estimate_and_shows_as_its_placeholder() -> None:
    message = _tool_result("c1", _image(), _image())
    assert message_tokens(len, message) == len(message.text_with_placeholders()) + 2 * IMAGE_TOKEN_ESTIMATE
    [part] = message_parts([message])
    assert part.fixed_tokens == 2 * IMAGE_TOKEN_ESTIMATE
    assert part.text.endswith("[image: image/png]\n[image: image/png]")


def test_the_summarizer_input_has_placeholders_and_the_history_keeps_the_images() -> None:
    plain = Message.user("no images")
    history = [plain, _tool_result("c1", _image())]
    slim = without_images(history)
    assert slim[0] is plain
    assert slim[1].images == [] and slim[1].content == "a.png is a PNG image\n[image: image/png]"
    assert history[1].images == [_image()]


def test_only_images_in_tool_results_count_toward_the_trigger() -> None:
    history = [Message.user("pasted", [_image()]), _tool_result("c1", _image()), _tool_result("c2", _image(), _image())]
    assert tool_image_count(history) == 3


def test_the_last_three_images_are_restored_oldest_first_with_where_they_came_from(tmp_path) -> None:  # type: ignore[no-untyped-def]
    history: list[Message] = [Message.user("here", [_image("pasted")])]
    for n in range(4):
        call = ToolCall(f"c{n}", "read_file", f'{{"path": "shot{n}.png"}}')
        history += [Message(role="assistant", tool_calls=[call]), Message.tool_result(call, "img", images=[_image(f"shot{n}")])]
    chosen = recent_images(history)
    assert [image.source for image, _ in chosen] == ["shot1", "shot2", "shot3"]
    assert chosen[0][1] == '- turn 5: read_file args={"path": "shot1.png"}'
    assert recent_images(history[:1]) == [(_image("pasted"), "- turn 1: user-provided image")]
    attachments = collect_attachments(history, tmp_path, image_source=history)
    assert len(attachments.images) == 3 and IMAGES_INTRO in attachments.text() and not attachments.empty


def test_micro_compaction_clears_the_images_of_the_results_it_clears() -> None:
    history: list[Message] = [Message.user("go")]
    for n in range(3):
        call = ToolCall(f"c{n}", "read_file", "{}")
        history += [Message(role="assistant", tool_calls=[call]), Message.tool_result(call, "img", images=[_image()])]
    history.append(Message(role="assistant", content="done"))
    result = micro_compact(history, MicroSettings(keep_recent=1), force=True)
    cleared = [m for m in result.messages if m.role == "tool" and m.content == CLEARED]
    assert len(cleared) == 2 and all(not m.images for m in cleared)
    assert result.messages[-2].images  # the kept result keeps its image
    # The text saved is what it always was (here negative: the placeholder is longer); each image adds its estimate.
    assert result.tokens_saved == 2 * (IMAGE_TOKEN_ESTIMATE + 1 - math.ceil(len(CLEARED) / 4))


def test_view_pruning_never_drops_images() -> None:
    history: list[Message] = [Message.user("go")]
    for n in range(24):
        call = ToolCall(f"c{n}", "read_file", "{}")
        history += [Message(role="assistant", tool_calls=[call]), Message.tool_result(call, "x" * 60_000, images=[_image()])]
    history.append(Message(role="assistant", content="done"))
    result = prune_view(history, 20_000)
    pruned = result.messages
    assert result.trimmed and result.cleared and any(m.content == PLACEHOLDER for m in pruned)
    assert all(m.images for m in pruned if m.role == "tool")


def test_images_and_other_binary_files_are_never_embedded_as_text_after_a_summary(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from app.context.compaction.attachments import read_adaptive

    # Compressed image data is mostly bytes >= 0x80, which the printable test lets through.
    (tmp_path / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(128, 256)) * 4)
    (tmp_path / "blob.bin").write_bytes(bytes(range(128, 256)) * 4)
    (tmp_path / "notes.md").write_text("# notes\n", encoding="utf-8")
    assert read_adaptive(tmp_path / "shot.png") == ("binary", "")
    assert read_adaptive(tmp_path / "blob.bin") == ("binary", "")
    assert read_adaptive(tmp_path / "notes.md") == ("embed", "# notes\n")
