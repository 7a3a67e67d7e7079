"""`/context` on a 200,000-token session: assemble the request, build the report, render the list.

First with a cold token cache (the first /context of a resumed session), then warm
(every later turn: only new messages are counted).
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import report
from app.config import Settings
from app.context.assembler import ContextAssembler
from app.context.report import render_list
from app.core.history import Message, ToolCall
from app.core.tokens import TokenCounter, estimate_tokens
from app.core.tools.registry import builtin_registry
from app.paths import Paths

WORDS = "context window token budget compaction memory skill request model answer tool file line".split()


def _history(target_tokens: int, rng: random.Random) -> list[Message]:
    messages: list[Message] = []
    total = 0
    turn = 0
    while total < target_tokens:
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 400)))
        call = ToolCall(f"c{turn}", "read_file", '{"path": "src/module_%d.py"}' % turn)
        messages += [
            Message.user(text[:300]),
            Message(role="assistant", content="Looking.", tool_calls=[call]),
            Message.tool_result(call, text * 3),
            Message(role="assistant", content=text),
        ]
        total += sum(estimate_tokens(m.content) for m in messages[-4:])
        turn += 1
    return messages


def main() -> None:
    rng = random.Random(7)
    workspace = Path(tempfile.mkdtemp(prefix="agentctx-bench-ctx-"))
    try:
        (workspace / "QWEN.md").write_text("# Rules\n" + "Be precise.\n" * 200)
        settings = Settings()
        settings.model.name = "bench-model"
        paths = Paths(cwd=workspace, config_dir=workspace / "config", data_dir=workspace / "data")
        history = _history(200_000, rng)
        tools = builtin_registry().schemas()
        for label, model in (("estimate", "bench-model"), ("exact", "qwen3-coder-plus")):
            cold, warm = [], []
            for _ in range(5):
                counter = TokenCounter(model)
                counter.load()  # the vocabulary loads in the background at start-up; not part of /context
                assembler = ContextAssembler(paths=paths, settings=settings, model=model, context_window=262_144, counter=counter)
                started = time.perf_counter()
                text = render_list(assembler.report(assembler.assemble(history, tools), source="estimate"))
                cold.append(time.perf_counter() - started)
                started = time.perf_counter()
                render_list(assembler.report(assembler.assemble(history, tools), source="estimate"))
                warm.append(time.perf_counter() - started)
            request = assembler.assemble(history, tools)
            assert "Context breakdown" in text and request.token_method == label
            extra = {"tokens": request.total_tokens, "messages": len(history)}
            report(f"context.report_200k_{label}_cold", statistics.median(cold) * 1000, "ms", **extra)
            report(f"context.report_200k_{label}_warm", statistics.median(warm) * 1000, "ms", **extra)

    finally:
        shutil.rmtree(workspace, ignore_errors=True)

if __name__ == "__main__":
    main()
