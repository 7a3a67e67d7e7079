"""The command palette's entries: the app's own, then every /command and skill, so it finds what the / menu finds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from app.paths import ensure_private_dir
from app.tui.commands import COMMANDS, SlashCommand

if TYPE_CHECKING:
    from pathlib import Path

    from app.tui.widgets.prompt import PromptInput


def app_entries(app: Any, screenshots: Path) -> Iterator[SystemCommand]:
    """``app``: the AgentctxApp (typed loosely: this module must not import it)."""
    yield SystemCommand("Screenshot", f"Save an SVG of the screen in {screenshots}", lambda: save_screenshot(app, screenshots))
    yield SystemCommand("Help: keys and commands", "Every key and /command", app.action_help)
    yield SystemCommand("Sessions: resume an earlier session", "Newest first, with the first prompt", app.action_sessions)
    yield SystemCommand("Sessions: start a new session", "The current one stays recorded", app.action_new_session)
    yield SystemCommand("Conversation: expand or collapse tool output", "ctrl+o", app.action_toggle_tools)
    yield SystemCommand("Conversation: copy the last answer", "To the clipboard", app.action_copy_last)
    yield SystemCommand("Turn: cancel the running turn", "esc", app.action_cancel_turn)
    yield SystemCommand("Approval mode: cycle default, auto-edit, plan, yolo", "shift+tab", app.action_cycle_approval_mode)
    # Every /command and every skill, so the palette finds what the / menu finds.
    yield from command_entries(app.prompt, app.run_action, app.prompt.extra_commands)


def save_screenshot(app: Any, directory: Path) -> None:
    """An SVG of the screen in ``directory`` (Textual's own entry saves to ~/Downloads, which a server may not have)."""
    try:
        ensure_private_dir(directory)
        path = app.save_screenshot(path=str(directory))
    except OSError as exc:
        app.notify(f"Could not save the screenshot in {directory}: {exc}", severity="error", timeout=8)
        return
    app.notify(f"Saved the screenshot to {path}.")


def command_entries(
    prompt: PromptInput, run_action: Callable[[str], Awaitable[Any]], extra: Sequence[SlashCommand]
) -> Iterator[SystemCommand]:
    for command in (*COMMANDS, *extra):
        yield SystemCommand(f"/{command.name}", command.description, _runner(command, prompt, run_action))


def _runner(command: SlashCommand, prompt: PromptInput, run_action: Callable[[str], Awaitable[Any]]) -> Callable[[], object]:
    """A command without arguments runs at once; one that takes them waits in the prompt for them."""

    def run() -> None:
        if command.takes_argument:
            prompt.load_text(f"/{command.name} ")
            prompt.move_cursor(prompt.document.end)
            prompt.focus()
        else:
            run_action(command.action_call(""))

    return run
