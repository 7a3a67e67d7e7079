"""@path in the prompt: the project's files offered as you type, and what they would add on the gauge."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.markup import escape
from textual.content import Content

from app.tui.messages import PendingChanged
from app.tui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from app.tui.host import TuiHost


class MentionController:
    def __init__(self, host: TuiHost) -> None:
        self.host = host
        # The project's files for @path completion: listed once, on the first @ typed.
        self.project_files: list[str] | None = None

    def typed(self, message: PromptInput.MentionTyped) -> None:
        prompt = self.host.prompt
        self._update_pending()
        if message.query is None:
            prompt.mention_candidates = []
            return
        if self.project_files is None:
            self.host.run_worker(self._list_project_files, name="_list_project_files", group="project-files", exclusive=True, exit_on_error=False)
            return
        from app.context.mentions import rank_paths

        prompt.mention_candidates = rank_paths(message.query, self.project_files)
        if prompt.mention_candidates:
            shown = "  ".join(f"[b]@{escape(p)}[/b]" for p in prompt.mention_candidates[:6])
            self.host.show_hint(Content.from_markup(shown + "   [$text-muted](tab completes)[/]"))
        else:
            self.host.show_hint(Content.from_markup(f"[$text-muted]No file of this project matches '{escape(message.query)}'.[/]"))

    async def _list_project_files(self) -> None:
        from app.context.mentions import project_files

        self.project_files = await asyncio.to_thread(project_files, self.host.paths.project_root)
        prompt = self.host.prompt
        mention = prompt.mention_at_cursor()
        if mention is not None:  # the @ that started the listing is still being typed: offer the files now
            prompt.post_message(PromptInput.MentionTyped(mention.path))

    def _update_pending(self) -> None:
        """The gauge counts what the prompt's @files would add, before anything is sent."""
        text = self.host.prompt.text
        if "@" not in text:
            self.host.post_message(PendingChanged(0))
            return
        from app.context.mentions import find_mentions

        root = self.host.paths.project_root
        total = 0
        for mention in {m.path for m in find_mentions(text)}:
            try:
                path = (root / mention).resolve()
                if path.is_file() and (path == root or root.resolve() in path.parents):
                    total += path.stat().st_size
            except (OSError, ValueError):
                continue
        self.host.post_message(PendingChanged(total // 4))  # the same bytes/4 estimate the gauge uses before a count
