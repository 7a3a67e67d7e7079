"""Starting the SDK-built fake MCP server (tests/fakes/mcp_server.py) for the tests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

FAKE = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py")


def stdio_entry(*options: str, **extra: Any) -> dict[str, Any]:
    """A settings entry that runs the fake server over stdio with the same interpreter as the tests."""
    return {"command": sys.executable, "args": [FAKE, *options], **extra}


def write_user_settings(home: Path, data: dict[str, Any]) -> Path:
    path = home / "config" / "settings.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@contextmanager
def http_server(*options: str, sse: bool = False) -> Iterator[str]:
    """The fake server over streamable HTTP (or SSE) on 127.0.0.1; yields its URL."""
    process = subprocess.Popen([sys.executable, FAKE, "--sse" if sse else "--http", *options], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"the fake MCP server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/{'sse' if sse else 'mcp'}"
    finally:
        process.kill()
        process.wait(10)
