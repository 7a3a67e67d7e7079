"""Capture what Qwen Code 0.24.4 sends for each repository in tests/conformance/git_cases.py.

    npm install --prefix /tmp/qwen @qwen-code/qwen-code@0.24.4
    python -m scripts.capture_qwen_sections /tmp/qwen/node_modules/.bin/qwen

Each case's repository is built in a temporary directory, Qwen Code runs one headless turn in it against the
loopback fake server, and a part of the system prompt it sent is saved in tests/conformance/data/: the git
section for CASES (null when it sent none), the instruction blocks for IMPORT_CASES.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conformance.git_cases import CASES, GIT_ENV, IMPORT_CASES
from tests.fakes.openai_server import FakeOpenAIServer, Reply

START = "Git snapshot at conversation start"
DATA = Path(__file__).resolve().parents[1] / "tests" / "conformance" / "data"


def git_section(system: str) -> str | None:
    start = system.find(START)
    if start < 0:
        return None
    body = system.index("```text\n", start) + len("```text\n")
    return system[start : system.index("\n```", body - 1) + len("\n```")]


def instruction_blocks(system: str) -> str | None:
    """From the first ``--- Context from:`` line to the end of the last ``--- End of Context from:`` line.

    Qwen Code's own output-language file (written into its home on first run) is left out: it is
    Qwen Code's, not the repository's.
    """
    start = system.find("--- Context from: ")
    if start < 0:
        return None
    own = system.find("\n\n--- Context from: ", start)
    while own != -1 and "output-language.md ---" not in system[own : system.find("\n", own + 2)]:
        own = system.find("\n\n--- Context from: ", own + 2)
    text = system[start:own] if own != -1 else system[start:]
    last = text.rindex("--- End of Context from: ")
    end = text.find("\n", last)
    return text[: end if end != -1 else len(text)]


def main(qwen: str) -> int:
    base = Path(tempfile.mkdtemp(prefix="qwen-git-capture-"))
    home = base / "home"
    (home / ".qwen").mkdir(parents=True)
    settings = {"general": {"disableAutoUpdate": True, "disableUpdateNag": True}, "telemetry": {"enabled": False}}
    (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
    sections: dict[str, str | None] = {}
    blocks: dict[str, str | None] = {}
    with FakeOpenAIServer() as server:
        for name, build in {**CASES, **IMPORT_CASES}.items():
            cwd = build(base / "repos")
            first = len(server.requests)
            server.push(*[Reply.text("ok") for _ in range(6)])  # the turn and its side requests
            env = {
                "PATH": os.environ["PATH"], "HOME": str(home), "OPENAI_BASE_URL": server.base_url,
                "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m", "NO_PROXY": "127.0.0.1,localhost", "TERM": "dumb",
                "GIT_CONFIG_NOSYSTEM": GIT_ENV["GIT_CONFIG_NOSYSTEM"], "GIT_CONFIG_GLOBAL": os.devnull,
            }
            subprocess.run([qwen, "--auth-type", "openai", "-p", "hi"], cwd=cwd, env=env, capture_output=True, timeout=120, check=True)
            system = server.requests[first].body["messages"][0]["content"]
            if name in CASES:
                sections[name] = git_section(system)
            else:
                blocks[name] = instruction_blocks(system)
            print(f"captured {name}", file=sys.stderr)
    for file, captured in (("qwen_git_sections.json", sections), ("qwen_import_blocks.json", blocks)):
        (DATA / file).write_text(json.dumps(captured, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
