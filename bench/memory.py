"""Auto-memory: heuristic recall and index rebuild over 5,000 memory files, and the secret scan.

The memories are generated (seeded) in a temp dir: four types, English and
Chinese prose, bullets, a few long bodies. Recall is measured three ways: on
memories already listed (scoring, selection, the reminder text; the text
normalisation cache cleared first), from disk as a turn does it (listing
included; files whose stat is unchanged are not parsed again), and from disk
cold (every file read and parsed, as on the first turn of a process). The
memories are left a little over a second old first: a file changed within the
last second is always read again (see app/context/memory/scan.py). The
secret scan runs on 1 MB texts built to make a backtracking regex engine
stall; the figure is the slowest of them.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path

from app.context.memory.index import rebuild_index
from app.context.memory.paths import AUTO_MEMORY_TYPES, MemoryScope
from app.context.memory.paths import MemoryPaths
from app.context.memory.terms import normalize_text
from app.context.memory.recall import heuristic_selection, plan_recall, recall_for_query
from app.context.memory.prompt import recall_reminder
from app.context.memory.scan import RACY_NS, clear_scan_cache
from app.context.memory.secrets import scan
from app.context.memory.store import MemoryStore
from bench.common import report

FILES = 5_000
RUNS = 7
SEED = 20260819
WORDS = ["deploy", "database", "test", "mock", "release", "pipeline", "dashboard", "ticket", "incident", "latency", "cache", "schema", "review", "style", "branch", "owner", "token", "budget"]
HANZI = "数据库测试部署发布缓存延迟面板事故负责人预算分支评审风格模拟"
QUERY = "why do the database tests fail after the release? 数据库测试 发布"


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _hanzi(rng: random.Random, chars: int) -> str:
    return "".join(rng.choice(HANZI) for _ in range(chars))


def build_memories(root: Path, rng: random.Random) -> None:
    for index in range(FILES):
        kind = AUTO_MEMORY_TYPES[index % 4]
        body_lines = [f"- {_sentence(rng, rng.randint(6, 20))}" for _ in range(rng.randint(1, 6))]
        if index % 5 == 0:
            body_lines.append(_hanzi(rng, rng.randint(10, 60)))
        if index % 97 == 0:
            body_lines.append(_sentence(rng, 600))
        text = (
            f"---\nname: {_sentence(rng, 3)} {index}\ndescription: {_sentence(rng, rng.randint(5, 14))}\n"
            f"type: {kind}\n---\n\n" + "\n".join(body_lines) + "\n"
        )
        path = root / kind / f"memory-{index:05}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def adversarial_texts() -> dict[str, str]:
    size = 1_000_000
    return {
        "openai_prefixes": ("sk-" * (size // 3))[:size],
        "openai_markers": ("sk-" + "a" * 600 + "T3BlbkFJ" * (size // 8))[:size],
        "pem_headers": ("-----BEGIN PRIVATE KEY-----\n" * (size // 28 + 1))[:size],
        "pem_mixed": ("-----END PRIVATE KEY-----" * 20_000 + "-----BEGIN RSA PRIVATE KEY-----" * 20_000)[:size],
        "slack_app": ("xapp-1-" + "A" * size)[:size],
        "prefix_soup": "".join(
            random.Random(SEED).choice(["sk-", "T3BlbkFJ", "-----BEGIN ", "PRIVATE KEY", "-----", "xoxb-", "hf_", "AKIA", "ghp_", "x" * 9, " "])
            for _ in range(size // 5)
        )[:size],
    }


def _median_ms(action, runs: int = RUNS) -> float:  # type: ignore[no-untyped-def]
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agentctx-bench-memory-") as base:
        run(Path(base))


def run(base: Path) -> None:
    rng = random.Random(SEED)
    paths = MemoryPaths(base / "project" / "memory", base / "user" / "memories", base / "repo" / ".qwen" / "team-memory", base / "repo")
    build_memories(paths.project_root, rng)
    time.sleep(RACY_NS / 1e9 + 0.1)  # memories are written on earlier turns, not in the last second
    store = MemoryStore(paths)
    entries = store.list(MemoryScope.PROJECT)
    assert len(entries) == FILES
    now = time.time()

    def recall_listed() -> None:
        normalize_text.cache_clear()
        chosen = heuristic_selection(plan_recall(QUERY, entries), 5)
        # The corpus is random words: BM25F's relative cut-off may keep none; the time is the figure.
        assert len(chosen) <= 5
        if chosen:
            recall_reminder(chosen, now)

    def recall_from_disk() -> None:
        normalize_text.cache_clear()
        asyncio.run(recall_for_query(store, QUERY))

    report("memory.recall_heuristic_5000", _median_ms(recall_listed), "ms", files=FILES)
    def recall_from_disk_cold() -> None:
        clear_scan_cache()
        recall_from_disk()

    report("memory.recall_heuristic_5000_from_disk", _median_ms(recall_from_disk), "ms", files=FILES)
    report("memory.recall_heuristic_5000_from_disk_cold", _median_ms(recall_from_disk_cold), "ms", files=FILES)

    def rebuild() -> None:
        clear_scan_cache()  # a rebuild after a restart reads every file
        paths.index_file(MemoryScope.PROJECT).unlink(missing_ok=True)
        assert rebuild_index(paths, MemoryScope.PROJECT).written

    report("memory.index_rebuild_5000", _median_ms(rebuild), "ms", files=FILES)

    worst, worst_name, figures = 0.0, "", {}
    for name, text in adversarial_texts().items():
        elapsed = _median_ms(lambda text=text: scan(text), runs=5)
        figures[name] = round(elapsed, 2)
        if elapsed > worst:
            worst, worst_name = elapsed, name
    report("memory.secret_scan_1mb_adversarial", worst, "ms", worst_case=worst_name, cases=figures)


if __name__ == "__main__":
    main()
