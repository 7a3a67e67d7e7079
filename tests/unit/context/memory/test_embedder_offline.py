"""The bundled model is loaded from the installed package and never from the network: WordLlama's own
loader downloads a file it cannot find, so a package missing its tokenizer must fail to load without
opening a connection (and semantic recall then stays off, keyword recall going on)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.context.memory.embedder import INSTALL_HINT, extra_installed

ROOT = Path(__file__).resolve().parents[4]
pytestmark = pytest.mark.skipif(not extra_installed(), reason=f"the embeddings extra is not installed ({INSTALL_HINT})")

PROBE = textwrap.dedent(
    """
    import socket, sys
    sys.path.insert(0, sys.argv[1])
    attempts = []
    real_connect = socket.socket.connect
    def connect(self, address):
        attempts.append(address)
        raise OSError("network refused by the test")
    socket.socket.connect = connect
    def getaddrinfo(host, *args, **kwargs):  # a download looks its host up first
        attempts.append(host)
        raise OSError("name lookup refused by the test")
    socket.getaddrinfo = getaddrinfo
    from app.context.memory.embedder import load_wordllama
    try:
        embedder = load_wordllama()
        print("loaded", embedder.embed(["hello"]).shape)
    except Exception as error:
        print("failed", type(error).__name__)
    print("hosts", attempts)
    print("attempts", len(attempts))
    """
)


def _run(site: Path) -> str:
    result = subprocess.run([sys.executable, "-c", PROBE, str(site)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "0"})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_bundled_model_loads_with_no_connection(tmp_path: Path) -> None:
    out = _run(tmp_path)  # nothing shadowing: the installed package
    assert "loaded (1, 256)" in out and "attempts 0" in out


def test_a_package_missing_its_tokenizer_fails_without_downloading_it(tmp_path: Path) -> None:
    import wordllama

    copy = tmp_path / "site" / "wordllama"
    shutil.copytree(Path(wordllama.__file__).parent, copy, ignore=shutil.ignore_patterns("*.json"))
    out = _run(copy.parent)
    assert "failed FileNotFoundError" in out and "attempts 0" in out
