"""The multi-line prompt: Enter sends, ctrl+j adds a line, up/down walk the history, Tab completes /commands and @paths."""

from __future__ import annotations

from app.dataclass import dataclass
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from app.tui.commands import SlashCommand, complete_command, matching_commands

if TYPE_CHECKING:
    from app.context.mentions import Mention

DEFAULT_PLACEHOLDER = "Ask anything · / for commands · Enter sends · ctrl+j new line"
NEWLINE_KEYS = {"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"}


class PromptInput(TextArea):
    @dataclass
    class Submitted(Message):
        """Enter with something typed: ``text`` is to be sent."""

        text: str

    class AcceptSuggestion(Message):
        """Tab or Enter on an empty prompt while a suggestion is shown."""

    class Typed(Message):
        """The person changed the text (a shown suggestion gives way)."""

    @dataclass
    class CommandHint(Message):
        """The /commands that match what is typed (empty when not typing a command)."""

        matches: list[SlashCommand]

    @dataclass
    class MentionTyped(Message):
        """An ``@path`` is being typed at the cursor (``query`` is what follows the @), or None: not any more."""

        query: str | None

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
        # Paths offered for the @mention at the cursor, best first (the app fills it in).
        self.mention_candidates: list[str] = []

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
        if self._key_is(key, "complete", "tab") and self.text:
            # With text in the prompt, Tab completes or does nothing: it never moves focus away.
            event.prevent_default()
            event.stop()
            if self._complete_mention():
                return
            if self.text.startswith("/"):
                completed = complete_command(self.text, self.extra_commands)
                if completed is not None:
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
        own = self._bindings.key_to_bindings.get(key)
        if own:
            # Run the prompt's own bound keys (backspace, arrows, delete-word…) here, in the order typed.
            # Left to the binding system they are run after bubbling up to the app, so in a fast burst
            # "abc", four backspaces, "def" would insert "def" before the backspaces ran (textual#6605).
            event.prevent_default()
            event.stop()
            await self.run_action(own[0].action)
            return
        await super()._on_key(event)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        text = self.text
        if text and self.follow_up:
            self.post_message(self.Typed())
        matches = matching_commands(text, self.extra_commands) if text.startswith("/") and "\n" not in text else []
        self.post_message(self.CommandHint(matches))
        mention = self.mention_at_cursor()
        self.post_message(self.MentionTyped(mention.path if mention else None))

    def _cursor_index(self) -> int:
        row, column = self.cursor_location
        lines = self.text.split("\n")
        return sum(len(line) + 1 for line in lines[:row]) + column

    def mention_at_cursor(self) -> Mention | None:
        """The ``@path`` being typed at the cursor, if any."""
        from app.context.mentions import mention_at_cursor

        text = self.text
        return mention_at_cursor(text, self._cursor_index()) if "@" in text else None

    def _complete_mention(self) -> bool:
        """Tab on an ``@path`` being typed: the best candidate replaces it (a space follows a file)."""
        from app.context.mentions import escape_path

        mention = self.mention_at_cursor()
        if mention is None or not self.mention_candidates:
            return False
        best = self.mention_candidates[0]
        text = self.text
        completed = f"@{escape_path(best)} "
        self.load_text(text[: mention.start] + completed + text[mention.end :])
        offset = mention.start + len(completed)
        before = self.text[:offset]
        self.move_cursor((before.count("\n"), len(before.rsplit("\n", 1)[-1])))
        return True

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
