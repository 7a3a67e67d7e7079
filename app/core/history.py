"""Provider-neutral conversation messages.

The session record stores these (``to_dict``) and the model client turns them
into the OpenAI wire format (``to_openai``). Nothing here knows about HTTP.
"""

from __future__ import annotations

import json
from dataclasses import field, replace
from app.dataclass import dataclass
from typing import Any, Literal

from app.core.images import ImagePart

Role = Literal["system", "user", "assistant", "tool"]
_ROLES = ("system", "user", "assistant", "tool")  # a tuple: a role of any JSON type can be looked up


@dataclass
class ToolCall:
    """One function call the model asked for; ``arguments`` is the raw JSON text."""

    id: str
    name: str
    arguments: str = ""

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; raises ValueError with a readable reason."""
        text = self.arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the arguments of {self.name} are not valid JSON ({exc.msg} at char {exc.pos})") from None
        if not isinstance(value, dict):
            raise ValueError(f"the arguments of {self.name} must be a JSON object, got {type(value).__name__}")
        return value

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        get = data.get
        call_id, name, arguments = get("id", ""), get("name", ""), get("arguments", "")
        if type(call_id) is str and type(name) is str and type(arguments) is str:  # as written: no conversions
            return cls(call_id, name, arguments)
        return cls(str(call_id), str(name), str(arguments))


@dataclass
class Message:
    """A single message of the conversation.

    ``tool_call_id``/``name`` are set on tool results; ``reasoning`` holds a
    thinking model's ``reasoning_content`` (kept for display, never resent);
    ``images`` are sent beside the text (see ``wire_messages``).
    """

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    reasoning: str = ""
    is_error: bool = False
    images: list[ImagePart] = field(default_factory=list)

    @classmethod
    def user(cls, text: str, images: list[ImagePart] | None = None) -> Message:
        return cls(role="user", content=text, images=list(images or []))

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", content=text)

    @classmethod
    def tool_result(cls, call: ToolCall, output: str, *, is_error: bool = False, images: list[ImagePart] | None = None) -> Message:
        return cls(role="tool", content=output, tool_call_id=call.id, name=call.name, is_error=is_error, images=list(images or []))

    def text_with_placeholders(self) -> str:
        """The content with ``[image: <mime>]`` for each image, for where only text may go."""
        if not self.images:
            return self.content  # the same string: token counts are cached by it, every request
        return "\n".join([self.content, *(image.placeholder() for image in self.images)] if self.content else [i.placeholder() for i in self.images])

    def cleared(self, placeholder: str) -> Message:
        """This tool result with its output (text and images) replaced by ``placeholder``."""
        return replace(self, content=placeholder, images=[])

    def to_openai(self) -> dict[str, Any]:
        """The chat-completions wire form of this message (a tool result's images go in ``wire_messages``)."""
        out: dict[str, Any] = {"role": self.role}
        if self.role == "assistant":
            out["content"] = self.content or None
            if self.tool_calls:
                out["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": wire_arguments(call.arguments)},
                    }
                    for call in self.tool_calls
                ]
        elif self.role == "tool":
            out["content"] = self.content
            out["tool_call_id"] = self.tool_call_id or ""
        elif self.images:
            out["content"] = _content_parts(self.content, self.images)
        else:
            out["content"] = self.content
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        if self.reasoning:
            out["reasoning"] = self.reasoning
        if self.is_error:
            out["is_error"] = True
        if self.images:
            out["images"] = [image.to_dict() for image in self.images]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        get = data.get
        role = get("role")
        if role not in _ROLES:
            raise ValueError(f"unknown message role {role!r}")
        # Resuming builds 100,000 of these: the common (empty, already-str) values skip the conversions,
        # and the fields go positionally (2.3 -> 1.6 us for an answer with a tool call).
        content = get("content") or ""
        reasoning = get("reasoning") or ""
        calls = get("tool_calls")
        images = get("images")
        is_error = get("is_error", False)
        return cls(
            role,
            content if type(content) is str else str(content),
            [ToolCall.from_dict(c) for c in calls] if calls else [],
            get("tool_call_id"),
            get("name"),
            reasoning if type(reasoning) is str else str(reasoning),
            is_error if is_error is False or is_error is True else bool(is_error),
            [image for image in map(ImagePart.from_dict, images) if image is not None] if images else [],
        )


@dataclass
class Usage:
    """Token usage as the server reported it for one request."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.cached_tokens + other.cached_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_tokens": self.cached_tokens,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Usage:
        get = (data or {}).get
        return cls(
            int(get("prompt_tokens") or 0),
            int(get("completion_tokens") or 0),
            int(get("total_tokens") or 0),
            int(get("reasoning_tokens") or 0),
            int(get("cached_tokens") or 0),
        )


# Servers take images only in user messages: a tool result's images follow its results in one.
TOOL_IMAGES_HEADER = "The images below were returned by the tool calls above."


def wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """The chat-completions form of ``messages``, with each run of tool results' images after the run."""
    out: list[dict[str, Any]] = []
    pending: list[tuple[Message, ImagePart]] = []
    for message in messages:
        if pending and message.role != "tool":
            out.append(_tool_images_message(pending))
            pending = []
        out.append(message.to_openai())
        if message.role == "tool":
            pending.extend((message, image) for image in message.images)
    if pending:
        out.append(_tool_images_message(pending))
    return out


def _tool_images_message(pending: list[tuple[Message, ImagePart]]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": TOOL_IMAGES_HEADER}]
    for message, image in pending:
        parts.append({"type": "text", "text": f"From {image.source or message.name or 'a tool'} (call {message.tool_call_id}):"})
        parts.append({"type": "image_url", "image_url": {"url": image.data_url()}})
    return {"role": "user", "content": parts}


def _content_parts(text: str, images: list[ImagePart]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    parts.extend({"type": "image_url", "image_url": {"url": image.data_url()}} for image in images)
    return parts


def wire_arguments(text: str) -> str:
    """A tool call's arguments as they are sent back: a JSON object, ``{}`` when the model's were not one.

    Some servers parse the arguments of every earlier call in the history (vLLM did
    until it learned to coerce them); one malformed call would then fail every later
    request of the session. The record keeps what the model actually sent.
    """
    try:
        return text if isinstance(json.loads(text), dict) else "{}"
    except (ValueError, RecursionError):
        return "{}"


def close_dangling_tool_calls(history: list[Message], reason: str) -> list[Message]:
    """Tool results for calls that never got one, so the history stays valid to resend.

    OpenAI-compatible servers reject an assistant tool call without its result;
    a cancelled or crashed turn can leave one behind.
    """
    answered = {m.tool_call_id for m in history if m.role == "tool"}
    missing: list[Message] = []
    for message in history:
        if message.role != "assistant":
            continue
        for call in message.tool_calls:
            if call.id not in answered:
                missing.append(Message.tool_result(call, reason, is_error=True))
                answered.add(call.id)
    return missing
