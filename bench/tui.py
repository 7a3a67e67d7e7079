"""The TUI under load: streaming a long reply, a key press in a long session, resuming a 500 MB record.

All three drive the real ``AgentctxApp`` through ``App.run_test`` (Textual's
headless driver, 120x40). "On screen" means a frame: the app's ``_display`` is
wrapped so that every compositor update is also rendered to the bytes a real
terminal would get (``render_segments``, the work the real driver does), and
time-stamped with ``time.perf_counter()``. A figure ends at the first frame
whose bytes hold what we wait for.

* **Streaming** (``tui.stream_5000_tokens_lag``): ``bench/paced_server.py`` runs
  in its own process and streams 5,000 one-token chunks of Markdown (paragraphs,
  lists, headings, code blocks) at 1,000 tokens/s on an absolute schedule,
  ending in a marker word. The figure is the time from the server writing the
  last chunk to the first frame showing the marker. ``..._settled`` is the time
  until the turn is over (the reply re-rendered whole once, the status idle).
* **Key press** (``tui.keypress_2000_messages``): a session of 2,000 messages
  (answers in Markdown, tool calls with output) is resumed; then, one at a
  time, a key event goes into the driver's queue exactly as a terminal key would
  (``driver.send_message(events.Key)``), and the figure is the time until the
  first frame that shows the prompt holding the new character. Median of 40
  presses; the 95th percentile is kept too.
* **Resume to an interactive screen** (``tui.resume_500mb_to_interactive``, ``--resume-mb``):
  in a fresh interpreter (``--child-resume``), with the imports done, from
  constructing the app with ``resume=ID`` until the first frame after the
  session is open (transcript built, the last 40 entries mounted, status
  idle). Peak memory is the growth of ``VmHWM`` over the same span, as a
  multiple of the file size, plus the whole process's peak; ``after_map_estimate_x`` is the growth
  once the context map's estimate (which runs after that frame and reads every tool result left in
  the file) has finished.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench.common import median, peak_rss_bytes, python, report

SIZE = (120, 40)
STREAM_TOKENS = 5_000
STREAM_RATE = 1_000.0
STREAM_RUNS = 5
KEYPRESS_MESSAGES = 2_000
KEYPRESSES = 40
RESUME_MB = 500
RESUME_RUNS = 3
SEED = 20260819
UNREACHABLE = "http://127.0.0.1:9/v1"  # nothing is sent while resuming or typing


class Frames:
    """Time-stamps every frame the app would write to a terminal, and wakes waiters for a given text."""

    def __init__(self, app: Any) -> None:
        from textual._compositor import CompositorUpdate

        self.app = app
        self.times: list[float] = []
        self._waiting: list[tuple[str, float, asyncio.Future[float]]] = []
        original = app._display
        console = app.console

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if renderable is None or app._batch_count:
                return
            data = renderable.render_segments(console) if isinstance(renderable, CompositorUpdate) else str(renderable)
            now = time.perf_counter()
            self.times.append(now)
            for item in list(self._waiting):
                text, after, future = item
                if now >= after and text in data and not future.done():
                    future.set_result(now)
                    self._waiting.remove(item)

        app._display = display

    def wait_for(self, text: str, after: float = 0.0) -> asyncio.Future[float]:
        """A future set to the time of the first frame (drawn at or after ``after``) containing ``text``."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiting.append((text, after, future))
        return future

    async def next_frame(self, after: float, timeout: float = 10.0) -> float:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            later = [t for t in self.times if t >= after]
            if later:
                return later[0]
            await asyncio.sleep(0.002)
        raise TimeoutError("no frame")


def _settings(base_url: str) -> Any:
    from tests.tui.helpers import make_settings

    return make_settings(SimpleNamespace(base_url=base_url))  # type: ignore[arg-type]


# Everything a run writes goes under one temporary folder, removed at the end (main()).
_BASE: Path | None = None


def _workspace() -> Path:
    root = Path(tempfile.mkdtemp(prefix="ws-", dir=_BASE))
    (root / "README.md").write_text("# bench\n", encoding="utf-8")
    return root


# -- streaming ----------------------------------------------------------------------------------


def _start_paced_server() -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [python(), "-m", "bench.paced_server", "--tokens", str(STREAM_TOKENS), "--rate", str(STREAM_RATE)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    return process, line.rsplit(" ", 1)[-1]


def _stats(base_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats") as answer:
        return json.load(answer)


async def _stream_once() -> dict[str, float]:
    from bench.paced_server import END_MARK, TRIGGER
    from tests.tui.helpers import make_app, ready, wait_turn_done

    server, base_url = _start_paced_server()
    try:
        app = make_app(None, _workspace(), settings=_settings(base_url))
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            frames = Frames(app)
            shown = frames.wait_for(END_MARK)
            app.prompt.load_text(f"{TRIGGER}: a long answer")
            await pilot.press("enter")
            on_screen = await asyncio.wait_for(shown, timeout=STREAM_TOKENS / STREAM_RATE * 4 + 30)
            await wait_turn_done(pilot)
            await pilot.pause(0.2)
            settled = frames.times[-1]  # the last frame: the reply re-rendered whole, the status idle
            stats = await asyncio.to_thread(_stats, base_url)
            assert stats["chunks"] == STREAM_TOKENS, stats
            return {
                "lag": on_screen - stats["last_sent"],
                "settled": settled - stats["last_sent"],
                "stream_seconds": stats["last_sent"] - stats["first_sent"],
            }
    finally:
        server.terminate()
        server.wait()


def bench_stream(runs: int) -> None:
    results = [asyncio.run(_stream_once()) for _ in range(runs)]
    lags = [r["lag"] for r in results]
    extra = {"tokens": STREAM_TOKENS, "rate": STREAM_RATE, "runs": runs, "target": 0.2}
    report("tui.stream_5000_tokens_lag", median(lags), "s", max=max(lags), **extra)
    settled = [r["settled"] for r in results]
    report("tui.stream_5000_tokens_settled", median(settled), "s", max=max(settled), stream_seconds=round(median([r["stream_seconds"] for r in results]), 2), runs=runs)


# -- key press ---------------------------------------------------------------------------------


def _long_session(count: int) -> list[Any]:
    import random

    from tests.tui.helpers import exchange, tool_exchange

    rng = random.Random(SEED)
    words = ["parser", "token", "session", "window", "budget", "summary", "cache", "index", "branch", "review"]
    messages: list[Any] = []
    turn = 0
    while len(messages) < count:
        turn += 1
        if turn % 4 == 0:
            output = "\n".join(f"line {i}: {rng.choice(words)} {rng.choice(words)}" for i in range(rng.randint(5, 80)))
            messages += tool_exchange(f"call_{turn}", "read_file", {"path": f"src/{rng.choice(words)}.py"}, output)
        else:
            prompt = f"step {turn}: look at the {rng.choice(words)} " + " ".join(rng.choice(words) for _ in range(rng.randint(3, 30)))
            answer = "\n\n".join(
                [f"## {rng.choice(words).title()}", " ".join(rng.choice(words) for _ in range(rng.randint(20, 120))), "- " + "\n- ".join(rng.choice(words) for _ in range(4)), "```python\nx = 1\n```"]
            )
            messages += exchange(prompt, answer)
    return messages[:count]


async def _keypresses(count: int) -> list[float]:
    from textual import events

    from app.paths import Paths
    from tests.tui.helpers import make_app, ready, record_session

    workspace = _workspace()
    record_session(Paths.for_cwd(workspace), _long_session(KEYPRESS_MESSAGES), session_id="cccccccc-0000-4000-8000-000000000002")
    app = make_app(None, workspace, settings=_settings(UNREACHABLE), resume="cccccccc-0000-4000-8000-000000000002")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.runtime is not None and len(app.runtime.resumed_messages) == KEYPRESS_MESSAGES, "session not resumed"
        await pilot.pause(0.3)
        frames = Frames(app)
        driver = app._driver
        assert driver is not None
        text = "thequickbrownfoxjumpsoverthelazydog" * 3
        timings = []
        for index in range(count):
            char = text[index]
            typed = text[: index + 1]
            event = events.Key(char, char)
            event.set_sender(app)
            started = time.perf_counter()
            shown = frames.wait_for(typed[-6:], after=started)
            driver.send_message(event)
            timings.append((await asyncio.wait_for(shown, timeout=10)) - started)
            await asyncio.sleep(0.03)  # a typist's pace; the app settles between keys
        assert app.prompt.text == text[:count], app.prompt.text
        return timings


def bench_keypress() -> None:
    timings = asyncio.run(_keypresses(KEYPRESSES))
    ms = sorted(t * 1000 for t in timings)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    report("tui.keypress_2000_messages", statistics.median(ms), "ms", p95=round(p95, 2), max=round(ms[-1], 2), presses=len(ms), messages=KEYPRESS_MESSAGES, target=50)


# -- resume to an interactive screen ---------------------------------------------------------------


async def _resume_child(workspace: Path, session_id: str) -> dict[str, float]:
    import app.runtime  # noqa: F401  imports are not what this measures (bench/startup.py does)
    from tests.tui.helpers import make_app

    before = peak_rss_bytes()
    started = time.perf_counter()
    cpu = time.process_time()
    tui = make_app(None, workspace, settings=_settings(UNREACHABLE), resume=session_id)
    async with tui.run_test(size=SIZE):
        frames = Frames(tui)
        # A plain sleep: Pilot.pause would wake the app every time and slow the loading thread (GIL).
        while not (tui.runtime is not None and tui.status.state == "idle" and tui.conversation.mounted_count):
            await asyncio.sleep(0.01)
        opened = time.perf_counter()
        shown = await frames.next_frame(opened)
        after = peak_rss_bytes()
        entries = len(tui.conversation.transcript.entries)
        cpu = time.process_time() - cpu
        # Not part of the figure: the context map's estimate, which runs once the screen is drawn, reads
        # every tool result left in the session file (app/core/session/lazy_text.py); the peak after it.
        deadline = time.perf_counter() + 120
        while any(w.group == "map-estimate" and not w.is_finished for w in tui.workers) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        settled = peak_rss_bytes()
    return {"seconds": shown - started, "cpu": cpu, "growth": after - before, "peak": after, "entries": entries, "settled_growth": settled - before}


def bench_resume(runs: int, megabytes: int = RESUME_MB) -> None:
    import random

    from app.paths import Paths
    from bench.sessions import generate_session

    workspace = _workspace()
    session_id = "dddddddd-0000-4000-8000-000000000003"
    path = generate_session(Paths.for_cwd(workspace).chats_dir, megabytes * 1024 * 1024, random.Random(SEED), session_id=session_id)
    size = path.stat().st_size
    results = []
    for _ in range(runs):
        out = subprocess.run([python(), "-m", "bench.tui", "--child-resume", str(workspace), session_id], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(out.stderr[-2000:])
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    file_mb = round(size / 1024 / 1024, 1)
    report(f"tui.resume_{megabytes}mb_to_interactive", median([r["seconds"] for r in results]), "s", file_mb=file_mb, entries=results[0]["entries"], runs=runs, target=3.0,
           cpu_s=round(median([r["cpu"] for r in results]), 2), all_s=[round(r["seconds"], 2) for r in results])
    growth = median([r["growth"] for r in results])
    report(f"tui.resume_{megabytes}mb_to_interactive_peak_memory", growth / size, "x file size", peak_growth_mb=round(growth / 1024 / 1024, 1),
           process_peak_mb=round(median([r["peak"] for r in results]) / 1024 / 1024, 1), file_mb=file_mb, target=1.5,
           after_map_estimate_x=round(median([r["settled_growth"] for r in results]) / size, 2))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=("stream", "keypress", "resume"))
    parser.add_argument("--runs", type=int, default=STREAM_RUNS, help="streaming runs (each about 7 s)")
    parser.add_argument("--child-resume", nargs=2, metavar=("WORKSPACE", "SESSION_ID"))
    parser.add_argument("--resume-mb", type=int, default=RESUME_MB, help="size of the resumed record")
    args = parser.parse_args()
    if args.child_resume:
        print(json.dumps(asyncio.run(_resume_child(Path(args.child_resume[0]), args.child_resume[1]))))
        return 0
    global _BASE
    with tempfile.TemporaryDirectory(prefix="agentctx-bench-tui-") as base:
        _BASE = Path(base)
        # A private home for every session record written here (the resume child inherits it).
        for key in [k for k in os.environ if k.startswith(("OPENAI_", "AGENTCTX_"))]:
            del os.environ[key]
        os.environ["AGENTCTX_HOME"] = str(_BASE / "home")
        os.environ["NO_PROXY"] = "127.0.0.1,localhost"
        if args.only in (None, "stream"):
            bench_stream(args.runs)
        if args.only in (None, "keypress"):
            bench_keypress()
        if args.only in (None, "resume"):
            bench_resume(RESUME_RUNS, args.resume_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
