"""The memory panel: saved memories by scope and type, read, edit or forget one, and what
extraction and dreaming are doing, live.

Everything shown from a memory file is plain text (``Content.assemble``), never markup:
a file named ``[b].md`` or a description holding ``[$accent]`` shows as written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult, SuspendNotSupported
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from app.context.memory import (
    MemoryEntry,
    MemoryScope,
    MemoryStoreError,
    SecretsInTeamMemoryError,
    TeamMemoryRootSecurityError,
    memory_age,
    read_meta,
    rebuild_index,
)
from app.context.memory.secrets import scan
from app.context.memory.index import index_problems
from app.context.memory.scan import scan_notes
from app.context.memory.entry import (
    SCOPE_TITLES,
    UNUSABLE_TOPIC,
    filter_entries,
    group_entries,
)
from app.context.memory.paths import read_capped
from app.context.memory.secrets import describe_findings
from app.context.memory.tasks import describe_task
from app.core.events import MEMORY_WORK
from app.tui.background_status import BackgroundStatusChanged
from app.tui.editor import EditorError, editor_command, run_editor
from app.tui.keys import MEMORY_KEYS, bindings
from app.tui.screens.confirm import ConfirmScreen
from app.tui.short_path import short_path

if TYPE_CHECKING:
    from app.context.memory.manager import MemoryManager

DESCRIPTION_CHARS = 160
EMPTY = "No memories yet. They are saved as you work, or when you ask (/remember)."
KEYS_HINT = "j/k move · enter reads · e edits · d forgets · / filters · esc closes"


def entry_prompt(entry: MemoryEntry, now: float) -> Content:
    """Title, file and age; the description under it; then each problem."""
    title = entry.title or entry.rel_path
    tail = f"  {entry.rel_path} · {memory_age(entry.mtime, now)}" + (" · pinned" if entry.pinned else "")
    parts: list[str | tuple[str, str]] = [(title, "bold"), (tail, "$text-muted")]
    if entry.description:
        description = entry.description if len(entry.description) <= DESCRIPTION_CHARS else entry.description[:DESCRIPTION_CHARS] + "…"
        parts.append(f"\n  {description}")
    colour = "$warning" if entry.usable else "$error"
    parts.extend((f"\n  ! {problem}", colour) for problem in entry.problems)
    return Content.assemble(*parts)


def group_prompt(scope: MemoryScope, topic: str, count: int) -> Content:
    colour = "$error" if topic == UNUSABLE_TOPIC else "$text-muted"
    return Content.assemble((SCOPE_TITLES[scope], "bold $accent"), (f" · {topic} ({count})", colour))


class MemoryScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = bindings(MEMORY_KEYS)

    def __init__(self, manager: MemoryManager, *, clock: Callable[[], float] | None = None) -> None:
        super().__init__(classes="memory")
        self.manager = manager
        self.clock = clock or manager.clock
        self.query_text = ""
        self._entries: list[MemoryEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-dialog"):
            yield Static(Content.assemble(("Memory", "bold"), (f"  {KEYS_HINT}", "$text-muted")), id="memory-title")
            yield Input(placeholder="filter: words from the title, description, file or text", id="memory-filter")
            yield OptionList(id="memory-list")
            yield Static("", id="memory-status")

    def on_mount(self) -> None:
        self.query_one("#memory-filter").display = False
        self.reload()
        self.option_list.focus()

    def on_background_status_changed(self, message: BackgroundStatusChanged) -> None:
        if message.status.source == MEMORY_WORK:
            self._on_memory_changed()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#memory-list", OptionList)

    # -- what is shown ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the memory files again, then show them and the task states."""
        try:
            self._entries = self.manager.entries()
        except OSError as error:  # an unreadable root: say so, keep the panel usable
            self._entries = []
            self.app.notify(f"Could not list the memories: {error}", severity="error")
        self._fill()
        self._show_status()

    def _on_memory_changed(self) -> None:
        if self.is_attached:
            self.reload()

    def _fill(self) -> None:
        option_list = self.option_list
        keep = self._selected_id()
        option_list.clear_options()
        shown = filter_entries(self._entries, self.query_text)
        if not shown:
            message = f"Nothing matches “{self.query_text}”." if self._entries else EMPTY
            option_list.add_option(Option(Content(message), disabled=True))
            return
        now = self.clock()
        rows: list[Option] = []
        for group in group_entries(shown):
            rows.append(Option(group_prompt(group.scope, group.topic, len(group.entries)), disabled=True))
            rows.extend(Option(entry_prompt(entry, now), id=str(entry.path)) for entry in group.entries)
        option_list.add_options(rows)
        self._highlight(keep)

    def _highlight(self, option_id: str | None) -> None:
        option_list = self.option_list
        index = None
        if option_id is not None:
            try:
                index = option_list.get_option_index(option_id)
            except OptionDoesNotExist:  # it was forgotten or renamed: fall back to the first entry
                index = None
        if index is None:
            index = next((i for i in range(option_list.option_count) if not option_list.get_option_at_index(i).disabled), None)
        option_list.highlighted = index

    def _show_status(self) -> None:
        meta = read_meta(self.manager.mem.meta_file)
        extraction = describe_task(self.manager.extraction, last_run_at=meta.last_extraction_at, last_status=meta.last_extraction_status)
        dream = describe_task(self.manager.dream, last_run_at=meta.last_dream_at, last_status=meta.last_dream_status)
        parts: list = [("Extraction  ", "bold"), extraction, "\n", ("Dream       ", "bold"), dream]
        for scope in (MemoryScope.PROJECT, MemoryScope.USER, MemoryScope.TEAM):
            try:
                problems = index_problems(self.manager.mem, scope) + scan_notes(self.manager.mem.root(scope))
            except OSError:
                continue
            # A person's index is never rewritten to fix these; they are shown so they can be.
            for problem in problems[:3]:
                parts += ["\n", (f"! {scope.value} {problem}", "$warning")]
            if len(problems) > 3:
                parts += ["\n", (f"! {scope.value} index: {len(problems) - 3} more problem(s)", "$warning")]
        self.query_one("#memory-status", Static).update(Content.assemble(*parts))

    def _selected_id(self) -> str | None:
        option_list = self.option_list
        if option_list.highlighted is None or option_list.option_count == 0:
            return None
        return option_list.get_option_at_index(option_list.highlighted).id

    def selected(self) -> MemoryEntry | None:
        option_id = self._selected_id()
        return next((e for e in self._entries if str(e.path) == option_id), None) if option_id else None

    # -- keys -----------------------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        if step > 0:
            self.option_list.action_cursor_down()
        else:
            self.option_list.action_cursor_up()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        from app.tui.screens.text_view import TextScreen

        entry = self.selected()
        if entry is not None:
            self.app.push_screen(TextScreen(entry.title or entry.rel_path, self._file_text(entry), subtitle=short_path(entry.path)))

    def _file_text(self, entry: MemoryEntry) -> str:
        try:
            self.manager.store.confine(entry.path)  # a symlink that leads elsewhere is not read
            content = read_capped(entry.path)
        except (MemoryStoreError, OSError) as error:
            return f"Cannot show {entry.path}: {error}"
        if content.truncated:
            return content.text + f"\n\n[… {content.problems[0]}]"
        return content.text

    def action_edit(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        try:
            command = editor_command()
            with self.app.suspend():
                status = run_editor(command, entry.path)
        except EditorError as error:
            self.app.notify(str(error), severity="error", timeout=8)
            return
        except SuspendNotSupported:
            self.app.notify(f"This terminal cannot hand the screen to an editor; the file is {entry.path}", severity="error", timeout=8)
            return
        problem = self._rebuild_index(entry.scope)
        self.reload()
        self._warn_of_team_secrets(entry)
        if status != 0:
            self.app.notify(f"The editor exited with status {status}.", severity="warning")
        elif problem:
            self.app.notify(f"Edited {entry.rel_path}, but the {entry.scope.value} index was not rebuilt: {problem}", severity="warning", timeout=8)
        else:
            self.app.notify(f"Edited {entry.rel_path}; the {entry.scope.value} memory index is rebuilt.")

    def _rebuild_index(self, scope: MemoryScope) -> str:
        """Rebuild one scope's MEMORY.md; what went wrong, or ''."""
        try:
            rebuild_index(self.manager.mem, scope)
        except (TeamMemoryRootSecurityError, OSError) as error:  # reported, not raised
            return str(error)
        return ""

    def _warn_of_team_secrets(self, entry: MemoryEntry) -> None:
        """Team memory is committed for everyone to read: a credential typed into it is worth a warning."""
        if entry.scope is not MemoryScope.TEAM:
            return
        try:
            findings = scan(read_capped(entry.path).text)
        except OSError:
            return
        if findings:
            self.app.notify(
                f"{entry.rel_path} now holds what looks like a secret ({describe_findings(findings)}); team memory is committed with the repository.",
                severity="error",
                timeout=10,
            )

    def action_forget(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        question = f"Forget “{entry.title or entry.rel_path}”?"
        detail = f"This deletes the file\n{short_path(entry.path)}\nand rebuilds the {entry.scope.value} memory index."

        def answered(yes: bool | None) -> None:
            if yes:
                self._forget(entry)

        self.app.push_screen(ConfirmScreen(question, detail), answered)

    def _forget(self, entry: MemoryEntry) -> None:
        try:
            result = self.manager.forget([entry.path])
        except (MemoryStoreError, SecretsInTeamMemoryError, TeamMemoryRootSecurityError, OSError) as error:  # a file that leads outside memory
            self.app.notify(f"Could not forget {entry.rel_path}: {error}", severity="error", timeout=8)
        else:
            self.app.notify(result.message if result.removed else "; ".join(result.problems) or "Nothing was removed.")
        self.reload()

    def action_filter(self) -> None:
        field = self.query_one("#memory-filter", Input)
        field.display = True
        field.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.option_list.focus()

    def action_escape(self) -> None:
        """Esc leaves the filter (clearing it), then clears a kept filter, then closes."""
        field = self.query_one("#memory-filter", Input)
        if field.has_focus or self.query_text:
            field.value = ""
            self.query_text = ""
            field.display = False
            self._fill()
            self.option_list.focus()
            return
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
