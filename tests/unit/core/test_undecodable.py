"""The one form undecodable bytes are shown and sent in, and the request boundary's safety net."""

from __future__ import annotations

import json
import os

from app.core.llm.errors import classify
from app.core.llm.openai_compat import json_body
from app.core.undecodable import escape, scrub, unescape_path


def test_escape_and_unescape_round_trip_every_high_byte() -> None:
    raw = os.fsdecode(bytes(range(0x80, 0x100)))
    shown = escape(raw)
    assert shown.isascii() and shown.startswith("\\x80\\x81")
    assert unescape_path(shown) == raw
    assert escape("plain café") == "plain café"
    assert unescape_path("a\\x41b") == "a\\x41b"  # an ASCII byte is never a surrogate escape


def test_other_lone_surrogates_are_written_as_u_escapes() -> None:
    assert escape("a\ud800b") == "a\\ud800b"


def test_scrub_reaches_keys_and_nested_values() -> None:
    bad = os.fsdecode(b"\xe9")
    assert scrub({bad: [bad, {"k": (bad,)}], "n": 1}) == {"\\xe9": ["\\xe9", {"k": ["\\xe9"]}], "n": 1}


def test_a_request_body_with_a_surrogate_is_still_valid_utf8_json() -> None:
    body = {"messages": [{"role": "tool", "content": os.fsdecode(b"caf\xe9.txt")}]}
    assert json.loads(json_body(body).decode("utf-8"))["messages"][0]["content"] == "caf\\xe9.txt"


def test_a_local_encoding_error_is_not_blamed_on_the_endpoint() -> None:
    try:
        "\udce9".encode("utf-8")
    except UnicodeEncodeError as exc:
        error = classify(exc, base_url="http://h/v1", model="m", read_timeout=1)
    assert "not at fault" in error.message and "nothing was sent" in error.message
    assert "OpenAI-compatible" not in error.message
