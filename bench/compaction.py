"""Compaction figures: micro-compaction of a 10,000-message history, and the gate check per request."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from bench.common import report
from app.config import CompactionSettings
from app.context.compaction.compactor import Compactor
from app.context.compaction.micro import MicroSettings, micro_compact
from app.core.history import Message, ToolCall
from app.core.tokens import TokenCounter


def _history(messages: int) -> list[Message]:
    history: list[Message] = []
    i = 0
    while len(history) < messages:
        call = ToolCall(f"c{i}", "read_file", '{"path": "src/m%d.py"}' % i)
        history += [Message.user(f"step {i}"), Message(role="assistant", content="", tool_calls=[call]), Message.tool_result(call, "x = 1\n" * 200)]
        i += 1
    return history[:messages]


def main() -> None:
    history = _history(10_000)
    timings = []
    for _ in range(7):
        started = time.perf_counter()
        result = micro_compact(history, MicroSettings(keep_recent=5), force=True)
        timings.append(time.perf_counter() - started)
    assert result.changed
    report("compaction.micro_10k_messages", statistics.median(timings) * 1000, "ms", cleared=len(result.cleared_ids))
    compactor = Compactor(provider=None, settings=CompactionSettings(), counter=TokenCounter("m"), root=Path("."), context_window=200_000)  # type: ignore[arg-type]
    compactor.observe(150_000, 151_000)
    checks = 10_000
    started = time.perf_counter()
    for n in range(checks):
        compactor.band(compactor.gate_tokens(150_000 + n))
    report("compaction.gate_check", (time.perf_counter() - started) / checks * 1e6, "µs")


if __name__ == "__main__":
    main()
