"""Serve the fake OpenAI server from a YAML script, for demos without a real model.

Usage::

    python -m tests.fakes.serve SCRIPT.yaml [--port N] [--host 127.0.0.1] [--chunk-delay S]

It prints one line, ``listening on http://HOST:PORT/v1``, and serves until
Ctrl+C.  Point the agent at it with ``OPENAI_BASE_URL`` set to that URL, any
non-empty ``OPENAI_API_KEY`` and ``OPENAI_MODEL`` set to the script's model.

Script format (YAML)::

    model: demo-model           # listed by GET /v1/models (default "demo-model")
    chunk_delay: 0.02           # seconds between streamed chunks (default 0.02)
    default_reply: "..."        # used when no rule matches (a string or a reply mapping)
    exhausted_reply: "..."      # optional: used when the matching rule has no reply left
    rules:                      # the first rule whose `match` finds the LAST user message wins
      - match: '\\b(hello|hi)\\b'   # Python regex, case-insensitive, re.search
                                #  (single quotes: YAML keeps the backslashes)
        replies:                # one per request within the turn (see below)
          - "Hi there!"         # a plain string is shorthand for {text: "..."}
      - match: "readme"
        replies:
          - text: "Let me read it."               # Markdown, streamed word by word
            reasoning: "The user wants ..."       # optional, streamed first as reasoning_content
            tool_calls:                           # optional
              - name: read_file
                arguments: {path: README.md}      # a mapping (JSON-encoded) or a JSON string
          - text: "The README says ..."
            chunk_delay: 0.05                     # optional per-reply override
            finish_reason: stop                   # optional ("tool_calls" if the reply
                                                  #  has tool calls, else "stop")
      - match: "bye"
        reply: "Goodbye!"       # `reply:` is shorthand for a one-element `replies:`

Which reply of a rule answers a request: count the assistant messages in the
request after the last user message.  0 gives the first reply, 1 the second,
and so on, so a reply that asks for tool calls is followed, in the request
that carries the tool results, by the next reply of the same rule.  Past the
last reply, ``exhausted_reply`` is used.  Tool-call ids are generated and the
JSON arguments are streamed in 2-3 pieces.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply, ToolCall, split_json, split_words

__all__ = [
    "DemoScript",
    "ReplySpec",
    "Rule",
    "ScriptError",
    "ToolCallSpec",
    "assistant_turns_since_last_user",
    "last_user_text",
    "load_script",
    "main",
    "make_server",
]

DEFAULT_MODEL = "demo-model"
DEFAULT_CHUNK_DELAY = 0.02
DEFAULT_REPLY = "The demo script has no answer for that."
DEFAULT_EXHAUSTED = "(The demo script has nothing more to say about this request.)"


class ScriptError(ValueError):
    """The YAML script is malformed."""


@dataclass(frozen=True)
class ToolCallSpec:
    name: str
    arguments: Any = field(default_factory=dict)  # mapping, or an already-encoded JSON string
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class ReplySpec:
    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    finish_reason: str | None = None
    chunk_delay: float | None = None


@dataclass(frozen=True)
class Rule:
    match: str
    replies: tuple[ReplySpec, ...]

    def matches(self, text: str) -> bool:
        return re.search(self.match, text, re.IGNORECASE) is not None


# --------------------------------------------------------------------------- message helpers


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        texts = [p.get("text", "") for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)]
        return "\n".join(texts)
    return ""


def _last_user_index(messages: Sequence[Mapping[str, Any]]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            return i
    return None


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The text of the last user message, or None when there is none."""
    i = _last_user_index(messages)
    return None if i is None else _message_text(messages[i].get("content"))


def assistant_turns_since_last_user(messages: Sequence[Mapping[str, Any]]) -> int:
    """How many assistant messages follow the last user message."""
    i = _last_user_index(messages)
    if i is None:
        return 0
    return sum(1 for m in messages[i + 1 :] if m.get("role") == "assistant")


# --------------------------------------------------------------------------- parsing


def _parse_tool_call(raw: Any, where: str) -> ToolCallSpec:
    if not isinstance(raw, Mapping):
        raise ScriptError(f"{where}: a tool call must be a mapping with `name` and `arguments`")
    unknown = set(raw) - {"name", "arguments", "id"}
    if unknown:
        raise ScriptError(f"{where}: unknown tool-call key(s) {sorted(unknown)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ScriptError(f"{where}: a tool call needs a `name`")
    arguments = raw.get("arguments", {})
    if isinstance(arguments, str):
        try:
            json.loads(arguments)
        except ValueError as exc:
            raise ScriptError(f"{where}: `arguments` string is not valid JSON: {exc}") from None
    elif not isinstance(arguments, Mapping):
        raise ScriptError(f"{where}: `arguments` must be a mapping or a JSON string")
    else:
        arguments = dict(arguments)
    call_id = raw.get("id")
    return ToolCallSpec(name=name, arguments=arguments, id=str(call_id) if call_id is not None else None)


def _parse_reply(raw: Any, where: str) -> ReplySpec:
    if isinstance(raw, str):
        return ReplySpec(text=raw)
    if not isinstance(raw, Mapping):
        raise ScriptError(f"{where}: a reply must be a string or a mapping")
    unknown = set(raw) - {"text", "reasoning", "tool_calls", "finish_reason", "chunk_delay"}
    if unknown:
        raise ScriptError(f"{where}: unknown reply key(s) {sorted(unknown)}")
    calls_raw = raw.get("tool_calls") or []
    if not isinstance(calls_raw, list):
        raise ScriptError(f"{where}: `tool_calls` must be a list")
    delay = raw.get("chunk_delay")
    if delay is not None and not isinstance(delay, (int, float)):
        raise ScriptError(f"{where}: `chunk_delay` must be a number")
    return ReplySpec(
        text=str(raw.get("text") or ""),
        reasoning=str(raw.get("reasoning") or ""),
        tool_calls=tuple(_parse_tool_call(c, f"{where}.tool_calls[{i}]") for i, c in enumerate(calls_raw)),
        finish_reason=raw.get("finish_reason"),
        chunk_delay=float(delay) if delay is not None else None,
    )


def _parse_rule(raw: Any, where: str) -> Rule:
    if not isinstance(raw, Mapping):
        raise ScriptError(f"{where}: a rule must be a mapping with `match` and `replies`")
    unknown = set(raw) - {"match", "replies", "reply"}
    if unknown:
        raise ScriptError(f"{where}: unknown rule key(s) {sorted(unknown)}")
    pattern = raw.get("match")
    if not isinstance(pattern, str) or not pattern:
        raise ScriptError(f"{where}: a rule needs a `match` regex")
    try:
        re.compile(pattern, re.IGNORECASE)
    except re.error as exc:
        raise ScriptError(f"{where}: bad regex {pattern!r}: {exc}") from None
    if "reply" in raw and "replies" in raw:
        raise ScriptError(f"{where}: use either `reply` or `replies`, not both")
    replies_raw = [raw["reply"]] if "reply" in raw else raw.get("replies")
    if not isinstance(replies_raw, list) or not replies_raw:
        raise ScriptError(f"{where}: `replies` must be a non-empty list")
    replies = tuple(_parse_reply(r, f"{where}.replies[{i}]") for i, r in enumerate(replies_raw))
    return Rule(match=pattern, replies=replies)


# --------------------------------------------------------------------------- the script


@dataclass
class DemoScript:
    model: str = DEFAULT_MODEL
    chunk_delay: float = DEFAULT_CHUNK_DELAY
    default_reply: ReplySpec = field(default_factory=lambda: ReplySpec(text=DEFAULT_REPLY))
    exhausted_reply: ReplySpec = field(default_factory=lambda: ReplySpec(text=DEFAULT_EXHAUSTED))
    rules: list[Rule] = field(default_factory=list)

    @classmethod
    def from_mapping(cls, data: Any) -> DemoScript:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ScriptError("the script must be a YAML mapping")
        unknown = set(data) - {"model", "chunk_delay", "default_reply", "exhausted_reply", "rules"}
        if unknown:
            raise ScriptError(f"unknown top-level key(s) {sorted(unknown)}")
        rules_raw = data.get("rules") or []
        if not isinstance(rules_raw, list):
            raise ScriptError("`rules` must be a list")
        delay = data.get("chunk_delay", DEFAULT_CHUNK_DELAY)
        if not isinstance(delay, (int, float)) or delay < 0:
            raise ScriptError("`chunk_delay` must be a non-negative number")
        return cls(
            model=str(data.get("model") or DEFAULT_MODEL),
            chunk_delay=float(delay),
            default_reply=_parse_reply(data.get("default_reply", DEFAULT_REPLY), "default_reply"),
            exhausted_reply=_parse_reply(data.get("exhausted_reply", DEFAULT_EXHAUSTED), "exhausted_reply"),
            rules=[_parse_rule(r, f"rules[{i}]") for i, r in enumerate(rules_raw)],
        )

    @classmethod
    def from_yaml(cls, text: str) -> DemoScript:
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ScriptError(f"invalid YAML: {exc}") from None
        return cls.from_mapping(data)

    # -- selection (pure) -----------------------------------------------------------

    def find_rule(self, messages: Sequence[Mapping[str, Any]]) -> Rule | None:
        text = last_user_text(messages)
        if text is None:
            return None
        return next((rule for rule in self.rules if rule.matches(text)), None)

    def select(self, messages: Sequence[Mapping[str, Any]]) -> ReplySpec:
        """The reply spec that answers a request with these messages."""
        rule = self.find_rule(messages)
        if rule is None:
            return self.default_reply
        step = assistant_turns_since_last_user(messages)
        return rule.replies[step] if step < len(rule.replies) else self.exhausted_reply

    # -- rendering ------------------------------------------------------------------

    def build(self, spec: ReplySpec) -> Reply:
        delay = self.chunk_delay if spec.chunk_delay is None else spec.chunk_delay
        text_chunks = split_words(spec.text)
        reasoning = split_words(spec.reasoning)
        if spec.tool_calls:
            calls = []
            for call in spec.tool_calls:
                encoded = call.arguments_json()
                pieces = split_json(encoded, parts=3 if len(encoded) >= 24 else 2)
                calls.append(ToolCall.of((call.id, call.name, pieces)))
            return Reply.tool_calls(
                calls,
                text=text_chunks,
                reasoning=reasoning,
                delay=delay,
                finish_reason=spec.finish_reason or "tool_calls",
            )
        return Reply.text(*text_chunks, reasoning=reasoning, delay=delay, finish_reason=spec.finish_reason or "stop")

    def respond(self, request: RecordedRequest) -> Reply:
        """A ``FakeOpenAIServer.responder``."""
        return self.build(self.select(request.messages))


def load_script(path: str | Path) -> DemoScript:
    return DemoScript.from_yaml(Path(path).read_text(encoding="utf-8"))


def make_server(script: DemoScript, host: str = "127.0.0.1", port: int = 0) -> FakeOpenAIServer:
    """An unstarted server answering every chat request from ``script``."""
    return FakeOpenAIServer(model=script.model, host=host, port=port, responder=script.respond)


def wait_forever() -> None:
    """Block until Ctrl+C (or SIGTERM)."""
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous: dict[int, Any] = {}
    # Installed explicitly: a background job may have inherited SIGINT as "ignored".
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[signum] = signal.signal(signum, on_signal)
        except ValueError:  # not the main thread
            pass
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("script", help="YAML script (see the module docstring)")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: any free port)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--chunk-delay", type=float, default=None, help="override the script's chunk_delay")
    args = parser.parse_args(argv)
    try:
        script = load_script(args.script)
    except (OSError, ScriptError) as exc:
        print(f"error: {args.script}: {exc}", file=sys.stderr)
        return 2
    if args.chunk_delay is not None:
        script.chunk_delay = args.chunk_delay
    server = make_server(script, host=args.host, port=args.port)
    try:
        server.start()
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(f"listening on {server.base_url}", flush=True)
    try:
        wait_forever()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
