"""File names that are not UTF-8 and bytes on piped stdin are data: whole turns through the real CLI.

A file named ``b"caf\\xe9.txt"`` (Latin-1, as an old archive unpacks it) is listed by the prelude,
list_directory, glob and grep_search as ``caf\\xe9.txt``; the model sends that form back to read_file
and gets the file; the session is then reopened with ``-c``. Without the escaping every request
after the listing failed with a UnicodeEncodeError blamed on the endpoint, and the session stayed broken.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
WORKSPACE = Workspace(name="repo", git=False, files={"README.md": "# Project\n"})
SHOWN = "caf\\xe9.txt"  # the documented form: each undecodable byte as \xNN


def cli(args: list[str], *, cwd: Path, server: FakeOpenAIServer, stdin: bytes = b"", locale: str = "C.UTF-8") -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LC_", "PYTHONIOENCODING", "PYTHONUTF8"))}
    env.update(PYTHONPATH=str(ROOT), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="test", OPENAI_MODEL="fake-model", LC_ALL=locale)
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=cwd, env=env, input=stdin, capture_output=True, timeout=60)


def _tool_outputs(server: FakeOpenAIServer) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in server.requests[-1].messages if m.get("role") == "tool"}


def test_a_latin1_file_name_is_listed_read_back_and_resumed(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    with open(os.path.join(os.fsencode(workspace), b"caf\xe9.txt"), "wb") as handle:
        handle.write(b"bonjour le monde\n")
    fake_llm.push(
        Reply.tool_calls(
            [
                ("ls", "list_directory", {"path": "."}),
                ("gl", "glob", {"pattern": "*.txt"}),
                ("gr", "grep_search", {"pattern": "bonjour"}),
            ]
        )
    )
    fake_llm.push(Reply.tool_calls([("rd", "read_file", {"path": SHOWN})]))
    fake_llm.push(Reply.text("It greets the world."))
    result = cli(["-p", "list the files, then read the text one"], cwd=workspace, server=fake_llm)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode() == "It greets the world.\n"
    assert b"UnicodeEncodeError" not in result.stderr

    # The prelude's listing names it the same way as every tool.
    assert f"- {SHOWN}" in fake_llm.requests[0].messages[1]["content"]
    listed = {m["tool_call_id"]: m["content"] for m in fake_llm.requests[1].messages if m.get("role") == "tool"}
    assert SHOWN in listed["ls"].split()
    assert listed["gl"].splitlines() == [SHOWN]
    assert listed["gr"] == f"{SHOWN}:1: bonjour le monde"
    assert "bonjour le monde" in _tool_outputs(fake_llm)["rd"]
    # Every body that left was valid UTF-8 JSON (the server parsed each one).
    assert all(request.body is not None for request in fake_llm.requests)

    fake_llm.push(Reply.text("Still here."))
    again = cli(["-p", "and now?", "-c"], cwd=workspace, server=fake_llm)
    assert again.returncode == 0, again.stderr.decode()
    assert again.stdout.decode() == "Still here.\n"
    conversation = fake_llm.requests[-1].conversation
    assert conversation[-1] == {"role": "user", "content": "and now?"}
    assert any(m.get("role") == "tool" and "bonjour le monde" in m["content"] for m in conversation)


def test_an_invalid_byte_on_piped_stdin_is_replaced_and_said(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    # The C locale is where Python reads stdin with surrogateescape: the byte used to reach the record raw.
    fake_llm.push(Reply.text("ok"))
    result = cli(["--output-format", "json"], cwd=workspace, server=fake_llm, stdin=b"explain caf\xe9 please\n", locale="C")
    assert result.returncode == 0, result.stderr.decode()
    assert "stdin is not valid UTF-8 (byte 0xe9 at offset 11)" in result.stderr.decode()
    assert fake_llm.requests[0].conversation[-1]["content"] == "explain caf\ufffd please"
    session = json.loads(result.stdout)["session_id"]

    fake_llm.push(Reply.text("again"))
    resumed = cli(["-p", "more", "--resume", session], cwd=workspace, server=fake_llm)
    assert resumed.returncode == 0, resumed.stderr.decode()
    contents = [m["content"] for m in fake_llm.requests[-1].conversation]
    assert contents == ["explain caf\ufffd please", "ok", "more"]


def test_a_non_utf8_argument_is_sent_escaped(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("ok"))
    env_prompt = os.fsdecode(b"read caf\xe9.txt")
    result = cli(["-p", env_prompt], cwd=workspace, server=fake_llm, locale="C")
    assert result.returncode == 0, result.stderr.decode()
    assert fake_llm.requests[0].conversation[-1]["content"] == f"read {SHOWN}"
