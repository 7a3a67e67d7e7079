"""Run the TUI against the scripted demo model: ``python -m tests.fakes.demo``.

Starts the fake OpenAI server in-process on a free port with ``demo.yaml``,
points the agent at it through ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` /
``OPENAI_MODEL`` and runs the TUI.  If the TUI can't be imported, the server
keeps running (its URL is printed) until Ctrl+C so it can be used by hand.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.fakes.serve import load_script, make_server, wait_forever

DEMO_SCRIPT = Path(__file__).with_name("demo.yaml")


def _add_no_proxy() -> None:
    for name in ("NO_PROXY", "no_proxy"):
        entries = [e.strip() for e in os.environ.get(name, "").split(",") if e.strip()]
        entries += [h for h in ("127.0.0.1", "localhost") if h not in entries]
        os.environ[name] = ",".join(entries)


def main(argv: Sequence[str] | None = None) -> int:
    script = load_script(DEMO_SCRIPT)
    server = make_server(script)
    server.start()
    try:
        os.environ["OPENAI_BASE_URL"] = server.base_url
        os.environ["OPENAI_API_KEY"] = "demo"
        os.environ["OPENAI_MODEL"] = script.model
        _add_no_proxy()
        try:
            from app.tui.launch import run_tui
        except ImportError as exc:
            print(
                f"The TUI is not available yet ({exc}).\n"
                f"The demo model is still being served at {server.base_url} (model {script.model!r}).\n"
                f"Try: OPENAI_BASE_URL={server.base_url} OPENAI_API_KEY=demo OPENAI_MODEL={script.model} "
                "agentctx-tui\n"
                "Press Ctrl+C to stop.",
                flush=True,
            )
            wait_forever()
            return 0
        result = run_tui(demo=True)
        return result if isinstance(result, int) else 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
