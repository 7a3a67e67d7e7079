"""A headless turn never loads the TUI: Textual stays out of ``agentctx-tui -p``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.integration.test_headless_cli import ROOT

PROBE = """
import sys
from app.__main__ import main
code = main(["-p", "hello"])
print("exit", code, "textual", int(any(m == "textual" or m.startswith("textual.") for m in sys.modules)), "tui", int("app.tui" in sys.modules))
"""


def test_a_headless_turn_imports_no_textual(fake_llm: FakeOpenAIServer, tmp_path: Path) -> None:
    fake_llm.push(Reply.text("hi there"))
    (tmp_path / ".git").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=fake_llm.base_url, OPENAI_API_KEY="test", OPENAI_MODEL="fake-model")
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["hi there", "exit 0 textual 0 tui 0"]
