"""The multi-line prompt: Enter sends, ctrl+j adds a line, up/down walk the history, Tab completes /commands."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from app.tui.commands import SlashCommand, complete_command, matching_commands

DEFAULT_PLACEHOLDER = "Ask anything · / for commands · Enter sends · ctrl+j new line"
NEWLINE_KEYS = {"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"}


class PromptInput(TextArea):
    @dataclass
    class Submitted(Message):
        text: str

    class AcceptSuggestion(Message):
        """Tab or Enter on an empty prompt while a suggestion is shown."""

    class Typed(Message):
        """The person changed the text (a shown suggestion gives way)."""

    @dataclass
    class CommandHint(Message):
        """The /commands that match what is typed (empty when not typing a command)."""

        matches: list[SlashCommand]

    def __init__(self, *, history: list[str] | None = None, id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder=DEFAULT_PLACEHOLDER,
        )
        self.prompt_history: list[str] = list(history or [])
        self._history_index: int | None = None  # None: editing the draft, not a history item
        self._draft = ""
        self.keymap: dict[str, str] = {}
        self.follow_up = ""  # shown greyed while the prompt is empty (not TextArea.suggestion, which edits clear)
        # The skills a person may run as /name, beside the built-in commands (the app keeps it current).
        self.extra_commands: list[SlashCommand] = []

    def show_suggestion(self, text: str) -> None:
        self.follow_up = text
        self.placeholder = f"↳ {text}   (Tab or Enter accepts · typing dismisses)" if text else DEFAULT_PLACEHOLDER

    def _key_is(self, key: str, action_id: str, default: str) -> bool:
        return key in {k.strip() for k in self.keymap.get(action_id, default).split(",")}

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.follow_up and not self.text and (self._key_is(key, "submit", "enter") or self._key_is(key, "complete", "tab")):
            event.prevent_default()
            event.stop()
            self.post_message(self.AcceptSuggestion())
            return
        if self._key_is(key, "submit", "enter"):
            event.prevent_default()
            event.stop()
            self._submit()
            return
        if key in NEWLINE_KEYS or self._key_is(key, "newline", "ctrl+j"):
            event.prevent_default()
            event.stop()
            self.insert("\n")
            return
        if self._key_is(key, "complete", "tab") and self.text.startswith("/"):
            completed = complete_command(self.text, self.extra_commands)
            if completed is not None:
                event.prevent_default()
                event.stop()
                self.load_text(completed)
                self.move_cursor(self.document.end)
                return
        if self._key_is(key, "history_prev", "up") and self.cursor_location[0] == 0 and self.prompt_history:
            event.prevent_default()
            event.stop()
            self._walk_history(-1)
            return
        if self._key_is(key, "history_next", "down") and self.cursor_location[0] == self.document.line_count - 1 and self._history_index is not None:
            event.prevent_default()
            event.stop()
            self._walk_history(1)
            return
        await super()._on_key(event)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        text = self.text
        if text and self.follow_up:
            self.post_message(self.Typed())
        matches = matching_commands(text, self.extra_commands) if text.startswith("/") and "\n" not in text else []
        self.post_message(self.CommandHint(matches))

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.remember(text)
        self.post_message(self.Submitted(text))

    def remember(self, text: str) -> None:
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = None
        self._draft = ""

    def _walk_history(self, step: int) -> None:
        if self._history_index is None:
            if step > 0:
                return
            self._draft = self.text
            index = len(self.prompt_history) - 1
        else:
            index = self._history_index + step
        if index >= len(self.prompt_history):
            self._history_index = None
            self.load_text(self._draft)
        else:
            self._history_index = max(0, index)
            self.load_text(self.prompt_history[self._history_index])
        self.move_cursor(self.document.end)
