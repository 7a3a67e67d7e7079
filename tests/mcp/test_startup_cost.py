"""Start-up pays nothing for MCP when no server is configured, and never imports the SDK before the first frame."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.test_headless_cli import ROOT
from tests.mcp.servers import stdio_entry, write_user_settings

PROBE = """
import sys
from app.config import load_settings
from app.paths import Paths
from app.runtime import build_runtime
paths = Paths.for_cwd()
runtime = build_runtime(load_settings(paths), paths)
print(int(runtime.mcp is not None), int('app.mcp.manager' in sys.modules), int(any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules)))
"""


def _probe(cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_no_server_no_mcp_imports(tmp_path: Path) -> None:
    assert _probe(tmp_path) == ["0", "0", "0"]


def test_a_configured_server_does_not_import_the_sdk_while_building(tmp_path: Path, hermetic_home: Path) -> None:
    write_user_settings(hermetic_home, {"mcpServers": {"fake": stdio_entry()}})
    # The manager exists, but the SDK is imported by the first connection, in a worker thread.
    assert _probe(tmp_path) == ["1", "1", "0"]
