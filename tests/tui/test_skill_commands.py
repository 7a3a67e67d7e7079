"""Every skill a person may run is a /command; the skills panel searches and runs them.

A skill run as ``/review focus on tests`` sends the skill's instructions (with the
arguments) as the turn's message, shows what was typed in the conversation, and is
recorded and granted like a skill the model loaded.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, OptionList, Static

from app.tui.screens.skills import SkillsScreen, matches_query
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.tui.helpers import SIZE, make_app, notifications, ready, rendered_text, send, views_of, wait_until
from app.tui.widgets.message_views import UserView

USER_ONLY = "---\nname: release-notes\ndescription: Draft the release notes\ndisable-model-invocation: true\n---\nWrite notes for $ARGUMENTS.\n"
CLASHING = "---\nname: init\ndescription: A project skill named like a built-in command\n---\nShadowed.\n"


def _skill(workspace: Path, name: str, text: str) -> None:
    folder = workspace / ".qwen" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")


def _hint(app) -> str:  # type: ignore[no-untyped-def]
    return rendered_text(app.query_one("#command-hint", Static))


async def test_the_slash_menu_lists_skills_with_their_descriptions_and_tab_completes(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _skill(workspace, "release-notes", USER_ONLY)
    _skill(workspace, "init", CLASHING)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        names = [c.name for c in app.prompt.extra_commands]
        assert "review" in names and "release-notes" in names
        assert names.count("init") == 0, "a built-in command wins over a skill of the same name"
        app.prompt.insert("/rev")
        await pilot.pause()
        assert "/review skill · Review the current uncommitted changes" in _hint(app)
        await pilot.press("tab")
        assert app.prompt.text == "/review "


async def test_a_skill_command_sends_its_instructions_with_the_arguments(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    fake_llm.push(Reply.text("Reviewed: no findings."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/review focus on tests")
        sent = fake_llm.requests[-1].messages[-1]
        assert sent["role"] == "user"
        assert "# Review the current changes" in sent["content"]
        assert sent["content"].rstrip().endswith("ARGUMENTS: focus on tests")
        [user] = views_of(app, UserView)
        assert rendered_text(user) == "/review focus on tests", "the conversation shows what was typed, not the skill body"
        assert app.runtime is not None and "review" in app.runtime.skills.invoked


async def test_a_user_only_skill_runs_as_a_command_with_its_placeholder_filled(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _skill(workspace, "release-notes", USER_ONLY)
    fake_llm.push(Reply.text("Notes drafted."))
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/release-notes v2.1")
        assert "Write notes for v2.1." in fake_llm.requests[-1].messages[-1]["content"]


async def test_a_disabled_skill_is_no_command(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    settings_app = make_app(fake_llm, workspace)
    settings_app.settings.skills.disabled = ["review"]
    async with settings_app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "review" not in [c.name for c in settings_app.prompt.extra_commands]
        await send(pilot, "/review", wait=False)
        await pilot.pause()
        assert "Unknown command /review. Type / to see the commands." in notifications(settings_app, "warning")
        assert fake_llm.requests == []


async def test_a_skill_added_while_running_becomes_a_command(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "release-notes" not in [c.name for c in app.prompt.extra_commands]
        _skill(workspace, "release-notes", USER_ONLY)
        assert app.runtime is not None
        app.runtime.skills.reload()  # what the file watcher does on a change
        await wait_until(pilot, lambda: "release-notes" in [c.name for c in app.prompt.extra_commands], what="menu updated")


async def _open_panel(pilot) -> SkillsScreen:  # type: ignore[no-untyped-def]
    await pilot.press("f4")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SkillsScreen), what="skills panel")
    return pilot.app.screen


def _rows(screen: SkillsScreen) -> list[str]:
    option_list = screen.query_one(OptionList)
    return [str(option_list.get_option_at_index(i).prompt) for i in range(option_list.option_count)]


async def test_panel_search_filters_and_enter_puts_the_skill_in_the_prompt(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    _skill(workspace, "release-notes", USER_ONLY)
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open_panel(pilot)
        await pilot.press("slash")
        assert screen.query_one("#skills-search", Input).has_focus
        await pilot.press(*"release")
        rows = _rows(screen)
        assert any(r.startswith("● release-notes") or "release-notes" in r for r in rows)
        assert not any(" review " in r or r.startswith("● review") for r in rows), "filtered out"
        await pilot.press("enter")  # from the search box to the list
        assert screen.query_one(OptionList).has_focus
        await pilot.press("enter")  # runs: the panel closes, /name waits in the prompt for arguments
        await wait_until(pilot, lambda: not isinstance(app.screen, SkillsScreen), what="panel closed")
        assert app.prompt.text == "/release-notes "
        assert app.focused is app.prompt
        assert fake_llm.requests == [], "nothing is sent before the person presses Enter"


async def test_panel_search_with_no_match_says_so_and_esc_clears_then_closes(fake_llm: FakeOpenAIServer, workspace: Path) -> None:
    app = make_app(fake_llm, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        screen = await _open_panel(pilot)
        await pilot.press("slash", *"zzzz")
        assert _rows(screen) == ["No skill matches 'zzzz'."]
        await pilot.press("escape")
        assert isinstance(app.screen, SkillsScreen) and screen.query_text == ""
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SkillsScreen), what="closed")


def test_query_matching_words_anywhere_or_letters_of_the_name_in_order() -> None:
    assert matches_query("", "review", "anything")
    assert matches_query("uncommitted changes", "review", "Review the current uncommitted changes")
    assert matches_query("rvw", "review", "")
    assert matches_query("RelNot", "release-notes", "")
    assert not matches_query("deploy", "review", "Review the current uncommitted changes")
    assert not matches_query("wer", "review", "")
