"""Nothing the model or a file says can drive the terminal: ``-p`` output, stderr tool lines and CLI listings.

Each test is the attack: a model answer (or a SKILL.md description, or a tool
summary) carrying OSC 52 (write the clipboard), a title change, a screen clear and
a C1 CSI; the real command runs in a subprocess and its bytes are checked for ESC
(0x1b) and for the C1 CSI (U+009B). Without ``InertStream`` / ``inert_stream_text``
the bytes reach stdout raw and the tests fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
CLIPBOARD = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
TITLE = "\x1b]0;you have been pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
C1_CSI = "\x9b31m"
HOSTILE = f"Done.{CLIPBOARD}{TITLE}{CLEAR}{C1_CSI} really"


def _run(args: list[str], cwd: Path, server: FakeOpenAIServer | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["PYTHONPATH"] = str(ROOT)
    if server is not None:
        env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="k", OPENAI_MODEL="fake-model")
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=cwd, env=env, capture_output=True, timeout=60)


def _no_escapes(data: bytes) -> None:
    assert b"\x1b" not in data, data
    assert "\x9b".encode() not in data, data
    assert b"\x07" not in data, data


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def test_headless_text_output_prints_no_escape(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    fake_llm.push(Reply.text("Done.", CLIPBOARD, TITLE, CLEAR, C1_CSI, " really"))
    result = _run(["-p", "finish"], repo, fake_llm)
    assert result.returncode == 0, result.stderr
    _no_escapes(result.stdout)
    assert result.stdout.decode() == "Done.␛]52;c;ZWNobyBwd25lZA==␇␛]0;you have been pwned␇␛[2J␛[H\\u009b31m really\n"


def test_stderr_tool_lines_print_no_escape(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    hostile_name = f"notes{TITLE}.md"
    (repo / hostile_name).write_text("x\n", encoding="utf-8")
    fake_llm.push(Reply.tool_calls([("c1", "read_file", {"path": hostile_name})]), Reply.text("ok"))
    result = _run(["-p", "read it"], repo, fake_llm)
    assert result.returncode == 0, result.stderr
    assert b"[ok] read_file notes" in result.stderr
    _no_escapes(result.stderr)
    _no_escapes(result.stdout)


def test_json_output_stays_json_and_prints_no_escape(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    fake_llm.push(Reply.text(HOSTILE))
    result = _run(["-p", "finish", "--output-format", "json"], repo, fake_llm)
    assert result.returncode == 0, result.stderr
    _no_escapes(result.stdout)
    assert json.loads(result.stdout)["result"].startswith("Done.")


def test_skills_list_prints_no_escape_from_a_skill_description(repo: Path) -> None:
    skill = repo / ".qwen" / "skills" / "pwn"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: pwn\ndescription: \"Helps{CLEAR}{CLIPBOARD}{C1_CSI}\"\n---\nBody.\n", encoding="utf-8")
    for args in (["skills", "list"], ["skills", "list", "--json"]):
        result = _run(args, repo)
        assert result.returncode == 0, result.stderr
        assert b"pwn" in result.stdout
        _no_escapes(result.stdout)
    listed = json.loads(_run(["skills", "list", "--json"], repo).stdout)
    assert any(row.get("name") == "pwn" for row in listed)


def test_sessions_list_prints_no_escape_from_a_hostile_prompt(fake_llm: FakeOpenAIServer, repo: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    assert _run(["-p", f"title me {TITLE}{CLEAR}"], repo, fake_llm).returncode == 0
    result = _run(["sessions", "list"], repo)
    assert result.returncode == 0, result.stderr
    assert b"title me" in result.stdout
    _no_escapes(result.stdout)
