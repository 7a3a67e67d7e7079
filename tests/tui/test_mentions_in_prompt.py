"""@path in the prompt: completion from the project's files, the gauge counting them before sending,
the file attached to what the model receives, refusals shown, and Tab never moving focus away."""

from __future__ import annotations

import subprocess
from pathlib import Path

from textual.widgets import Static

from app.context.mentions import FOOTER, HEADER
from app.tui.widgets.message_views import NoticeView, UserView
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import SIZE, make_app, ready, rendered_text, send, views_of, wait_until


def _repo(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / ".gitignore").write_text("build/\n", encoding="utf-8")
    (workspace / "src").mkdir()
    (workspace / "src" / "parser.py").write_text("def parse(text):\n    return text.split()\n" * 20, encoding="utf-8")
    (workspace / "build").mkdir()
    (workspace / "build" / "parser.py").write_text("generated\n", encoding="utf-8")


def _hint(app) -> str:  # type: ignore[no-untyped-def]
    return rendered_text(app.query_one("#command-hint", Static))


async def test_typing_at_offers_project_files_and_tab_completes(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _repo(workspace)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.prompt.insert("explain @pars")
        await wait_until(pilot, lambda: "@src/parser.py" in _hint(app), what="candidates shown")
        assert "build/parser.py" not in _hint(app), "ignored files are not offered"
        await pilot.press("tab")
        assert app.prompt.text == "explain @src/parser.py "
        assert app.focused is app.prompt
        await wait_until(pilot, lambda: app.gauge.pending > 0, what="gauge counts the mention")
        assert app.gauge.pending == (workspace / "src" / "parser.py").stat().st_size // 4
        assert "@files" in rendered_text(app.gauge)


async def test_a_mentioned_file_reaches_the_model_attached(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _repo(workspace)
    fake_llm.push(Reply.text("It splits on whitespace."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "explain @src/parser.py")
        content = fake_llm.requests[-1].messages[-1]["content"]
        body = (workspace / "src" / "parser.py").read_text(encoding="utf-8")
        assert content == f"explain @src/parser.py\n\n{HEADER}\nContent from @src/parser.py:\n{body}\n{FOOTER}"
        [user] = views_of(app, UserView)
        assert rendered_text(user) == "explain @src/parser.py", "the conversation shows what was typed"
        assert any(rendered_text(n).startswith("Attached @src/parser.py (") for n in views_of(app, NoticeView))
        assert app.gauge.pending == 0


async def test_a_mention_outside_the_project_is_not_sent_and_is_named(fake_llm: FakeOpenAIServer, workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n", encoding="utf-8")
    (workspace / "innocent.md").symlink_to(secret)
    fake_llm.push(Reply.text("I cannot see it."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, f"summarize @innocent.md and @{secret}")
        sent = fake_llm.requests[-1].body
        assert "wJalrXUtnFEMI" not in str(sent), "the file outside the project never reaches the endpoint"
        notices = [rendered_text(n) for n in views_of(app, NoticeView)]
        assert sum(n.startswith("Not attached: @") for n in notices) == 2, notices


async def test_tab_with_plain_text_keeps_focus_in_the_prompt(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.prompt.insert("what does this do")
        await pilot.pause()
        await pilot.press("tab")
        assert app.focused is app.prompt
        assert app.prompt.text == "what does this do"
        fake_llm.push(Reply.text("ok"))
        await pilot.press("enter")  # Enter still sends (it would open a map block had focus moved)
        await wait_until(pilot, lambda: len(fake_llm.requests) == 1, what="sent")
