"""The command palette's entries for every /command and skill, so it finds what the / menu finds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from app.tui.commands import COMMANDS, SlashCommand

if TYPE_CHECKING:
    from app.tui.widgets.prompt import PromptInput


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
