"""A turn has an end, and the truth about how it ended: endpoints that never finish, or finish without saying so.

Each scenario scripts an endpoint at the byte level (``Reply.wire``), runs one turn
through a real runtime and checks that the turn ended within its limit, with the
sentence that names the limit and its setting, the user's words in the record, and
how long the ending took (``time_to_end_s``, printed with ``-s``; never asserted).
Removing a guard makes its scenario hang past the test's own ``wait_for`` or fail
an assertion: the socket read timeout alone restarts on every comment or byte.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.events import Retrying, TextDelta, TurnFailed, TurnFinished
from app.core.llm.retry import RetryPolicy
from app.paths import Paths
from app.runtime import Runtime, build_runtime
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Wire
from tests.reliability.helpers import attach, bytes_lost, of_type, record_rows, recorded_prompts, settings_for, turn
from tests.reliability.report import BYTES_LOST

ROOT = Path(__file__).resolve().parents[2]
READ_TIMEOUT = 0.6
# A hung turn fails the test here instead of hanging the suite (the guards end it well before).
HANG = 20.0


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def _runtime(base_url: str, repo: Path, *, retries: int = 0, **model: object) -> Runtime:
    settings = settings_for(base_url, retries=retries, read_timeout=READ_TIMEOUT)
    for key, value in model.items():
        setattr(settings.model, key, value)
    runtime = build_runtime(settings, Paths.for_cwd(repo))
    assert runtime.agent is not None
    runtime.agent.retry = RetryPolicy(max_retries=retries, base_delay=0.01, max_total_seconds=20)
    return runtime


def _content(text: str, finish: str | None = None) -> dict:
    return Reply.chunk({"content": text}, finish)


async def _one_turn(runtime: Runtime, prompt: str, record_property) -> tuple[list, float]:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    events = await asyncio.wait_for(turn(runtime, prompt), HANG)
    elapsed = time.monotonic() - started
    record_property("time_to_end_s", round(elapsed, 2))
    assert recorded_prompts(runtime.recorder.path) == [prompt]
    record_property(BYTES_LOST, bytes_lost([prompt], runtime.recorder.path))
    return events, elapsed


def _keep_alive_forever(wire: Wire) -> None:
    wire.headers()
    wire.event(Reply.chunk({"role": "assistant", "content": ""}))
    while True:
        wire.write(b": ping\n\n")
        wire.sleep(0.05)


def _headers_dripped(wire: Wire) -> None:
    for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Slow: " + b"z" * 10_000:
        wire.write(bytes([byte]))
        wire.sleep(0.05)


def _event_dripped(wire: Wire) -> None:
    wire.headers()
    for byte in json.dumps(_content("never complete")).encode() * 100:
        wire.write(bytes([byte]) if byte != 10 else b" ")
        wire.sleep(0.05)


SILENT = {"keep-alive comments and no answer": _keep_alive_forever, "response headers dripped a byte at a time": _headers_dripped, "one event dripped a byte at a time": _event_dripped}


@pytest.mark.parametrize("name", list(SILENT))
async def test_no_complete_piece_within_the_read_timeout_is_silence(fake_llm: FakeOpenAIServer, repo: Path, name: str, record_property) -> None:  # type: ignore[no-untyped-def]
    attach(fake_llm).add("main", Reply.wire(SILENT[name]))
    runtime = _runtime(fake_llm.base_url, repo)
    try:
        events, elapsed = await _one_turn(runtime, f"answer me ({name})", record_property)
        final = events[-1]
        assert isinstance(final, TurnFailed) and final.error_kind == "timeout", final
        assert final.message.startswith(f"The model endpoint at {fake_llm.base_url} went silent for more than {READ_TIMEOUT:g} s")
        assert "model.read_timeout" in final.message
        assert elapsed < HANG
    finally:
        await runtime.aclose()


def _steady_forever(wire: Wire) -> None:
    wire.headers()
    while True:
        wire.event(_content("more "))
        wire.sleep(0.1)


async def test_a_steady_endless_stream_ends_at_the_request_deadline(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    attach(fake_llm).add("main", Reply.wire(_steady_forever))
    runtime = _runtime(fake_llm.base_url, repo, request_timeout=2.0)
    try:
        events, _ = await _one_turn(runtime, "tell me everything", record_property)
        final = events[-1]
        assert isinstance(final, TurnFailed) and final.error_kind == "limit", final
        assert final.message == (
            f"The answer from the model endpoint at {fake_llm.base_url} took longer than 2 s, the limit for one request; "
            "the stream was closed. Raise model.request_timeout in settings.yaml if answers this long are expected."
        )
        assert len(of_type(events, TextDelta)) > 5, "it streamed all along: each piece was progress"
    finally:
        await runtime.aclose()


def _runaway(wire: Wire) -> None:
    wire.headers()
    piece = _content("y" * 2000)
    while True:
        wire.event(piece)


async def test_a_runaway_answer_stops_at_the_answer_cap(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    attach(fake_llm).add("main", Reply.wire(_runaway))
    runtime = _runtime(fake_llm.base_url, repo)  # the default cap
    try:
        events, _ = await _one_turn(runtime, "write forever", record_property)
        final = events[-1]
        assert isinstance(final, TurnFailed) and final.error_kind == "limit", final
        assert final.message == (
            f"The answer from the model endpoint at {fake_llm.base_url} grew past 4,000,000 characters; the stream was closed. "
            "The limit is model.max_answer_chars in settings.yaml."
        )
        shown = sum(len(e.text) for e in of_type(events, TextDelta))
        assert shown <= 4_000_000
    finally:
        await runtime.aclose()


def _one_long_line(total: int):  # type: ignore[no-untyped-def]
    def write(wire: Wire) -> None:
        wire.headers()
        wire.write(b'data: {"choices": [{"delta": {"content": "')
        block = b"x" * (1 << 20)
        for _ in range(total // len(block)):
            wire.write(block)
        wire.write(b'"}}]}\n\n')

    return write


async def test_one_line_over_the_line_cap_is_refused_in_words(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    attach(fake_llm).add("main", Reply.wire(_one_long_line(8 << 20)))
    runtime = _runtime(fake_llm.base_url, repo)
    try:
        events, _ = await _one_turn(runtime, "one long line", record_property)
        final = events[-1]
        assert isinstance(final, TurnFailed) and final.error_kind == "limit", final
        assert final.message == (
            f"The model endpoint at {fake_llm.base_url} sent one event-stream line longer than 1,000,000 bytes; "
            "the stream was closed. The limit is model.max_line_bytes in settings.yaml."
        )
    finally:
        await runtime.aclose()


def _vm_hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass  # gone already, or not Linux
    return 0


@pytest.mark.soak
def test_a_400_mb_line_keeps_the_agent_under_400_mb(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    """A real headless process against a loopback endpoint that sends one 400 MB line; its peak RSS is measured."""
    fake_llm.push(Reply.wire(_one_long_line(400 << 20)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=fake_llm.base_url, OPENAI_API_KEY="k", OPENAI_MODEL="fake-model")
    err_path = repo.parent / "stderr.txt"
    with err_path.open("wb") as err_file:
        child = subprocess.Popen([sys.executable, "-m", "app", "-p", "one huge line"], cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=err_file)
        started = time.monotonic()
        # The peak of the program's own memory (VmHWM of the process after exec). wait4's ru_maxrss would also
        # count the copy of the forking pytest worker (a worker fat from an earlier test read as 832 MB).
        peak_kb = 0
        while child.poll() is None and time.monotonic() - started < 120:
            peak_kb = max(peak_kb, _vm_hwm_kb(child.pid))
            time.sleep(0.01)
        if child.poll() is None:
            child.kill()  # a hang fails the test instead of the suite
            child.wait()
    elapsed = time.monotonic() - started
    err = err_path.read_bytes()
    peak_mb = round(peak_kb / 1024, 1)
    record_property("peak_rss_mb", peak_mb)
    record_property("time_to_end_s", round(elapsed, 2))
    print(f"400 MB line: peak RSS {peak_mb} MB, ended in {elapsed:.2f} s")
    assert peak_mb < 400, f"peak RSS {peak_mb} MB"
    assert child.returncode == 1, err
    assert b"longer than 1,000,000 bytes" in err and b"model.max_line_bytes" in err


async def test_an_answer_cut_without_a_finish_is_kept_marked_interrupted(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("main", Reply.sse(Reply.chunk({"role": "assistant", "content": ""}), _content("Half a sen"), done=False))
    runtime = _runtime(fake_llm.base_url, repo, retries=2)
    try:
        events, _ = await _one_turn(runtime, "explain it", record_property)
        final = events[-1]
        assert isinstance(final, TurnFailed) and final.error_kind == "interrupted", final
        assert final.message.startswith(f"The answer was interrupted: the model endpoint at {fake_llm.base_url} ended the stream")
        assert script.count("main") == 1, "what was shown is not thrown away by a retry"
        rows = record_rows(runtime.recorder.path)
        answers = [r["message"]["content"] for r in rows if r["type"] == "assistant"]
        assert answers == ["Half a sen"], "what arrived is kept"
        assert [r.get("subtype") for r in rows if r["type"] == "system"][:2] == ["answer_interrupted", "notification"]
        assert runtime.agent is not None and runtime.agent.history[-1].content == "Half a sen"
    finally:
        await runtime.aclose()


async def test_a_stream_cut_before_any_answer_is_retried(fake_llm: FakeOpenAIServer, repo: Path, record_property) -> None:  # type: ignore[no-untyped-def]
    script = attach(fake_llm).add("main", Reply.sse(Reply.chunk({"role": "assistant", "content": ""}), done=False), Reply.text("Whole answer."))
    runtime = _runtime(fake_llm.base_url, repo, retries=2)
    try:
        events, _ = await _one_turn(runtime, "try again", record_property)
        assert isinstance(events[-1], TurnFinished) and events[-1].result == "Whole answer."
        [retry] = of_type(events, Retrying)
        assert "ended the stream before sending any part of the answer" in retry.reason
        assert script.count("main") == 2
    finally:
        await runtime.aclose()


def test_headless_exits_1_on_an_interrupted_answer(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=fake_llm.base_url, OPENAI_API_KEY="k", OPENAI_MODEL="fake-model")
    cut = Reply.sse(Reply.chunk({"role": "assistant", "content": ""}), _content("Half a sen"), done=False)
    fake_llm.push(cut, cut)
    text = subprocess.run([sys.executable, "-m", "app", "-p", "explain"], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert text.returncode == 1
    assert text.stdout.startswith("Half a sen")
    assert "error: The answer was interrupted" in text.stderr
    as_json = subprocess.run([sys.executable, "-m", "app", "-p", "explain", "--output-format", "json"], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert as_json.returncode == 1
    result = json.loads(as_json.stdout)
    assert result["is_error"] is True and result["error"].startswith("The answer was interrupted")
