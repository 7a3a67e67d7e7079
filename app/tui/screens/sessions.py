"""Pick an earlier session of this project: newest first, searchable, deletable.

Each row shows the session's title (or its first prompt), when it was last
written, its size and git branch. Searching reads the session files in a worker
thread and adds hits as they are found, so a project with 1,000 sessions keeps
the picker responsive; a new query cancels the running search.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.cells import cell_len, set_cell_size
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from app.core.session.delete import delete_session, session_files_to_delete
from app.core.session.display import human_size, local_time
from app.core.session.listing import SessionSummary
from app.core.session.search import SearchHit, search_sessions, snippet_around
from app.tui.keys import PICKER_KEYS, bindings
from app.tui.screens.confirm import ConfirmScreen

TITLE_WIDTH = 38
BRANCH_WIDTH = 14
# Typing pauses this long before a search starts, so each keystroke does not start one.
SEARCH_DELAY = 0.15
# Hits reach the list in batches: at most this many, or this often.
HIT_BATCH = 25
HIT_BATCH_SECONDS = 0.1
KEYS_HINT = "enter opens · / searches · d deletes · esc closes"
NO_SESSIONS = "No sessions recorded for this project yet."


def _fit(text: str, width: int) -> str:
    """``text`` on one line, cut with "…" past ``width`` terminal cells."""
    flat = " ".join(text.split())
    return flat if cell_len(flat) <= width else set_cell_size(flat, width - 1) + "…"


def _column(text: str, width: int) -> str:
    """``text`` fitted and padded to exactly ``width`` cells (wide characters count twice)."""
    return set_cell_size(_fit(text, width), width)


def session_row(summary: SessionSummary, current: str | None, snippet: str = "") -> Content:
    """One line per session, its first prompt under a title, and the matching words under it for a hit.

    Titles and prompts are plain text, never markup: "[b]" in a prompt shows as typed.
    """
    parts: list[str | tuple[str, str]] = [
        ("● ", "$accent") if summary.session_id == current else "  ",
        (local_time(summary.updated_at), "$text-muted"),
        "  ",
        _column(summary.label, TITLE_WIDTH) if summary.label else (_column("(no prompt)", TITLE_WIDTH), "$text-muted"),
        (f"  {human_size(summary.size):>9}  ", "$text-muted"),
        (_column(summary.git_branch or "", BRANCH_WIDTH), "$text-muted"),
        (f"  {summary.session_id[:8]}", "$text-muted"),
    ]
    if summary.title and summary.first_prompt and summary.first_prompt != summary.title:
        # A title says what the session became; the first prompt is how you remember starting it.
        parts.append((f"\n    › {_fit(summary.first_prompt, TITLE_WIDTH + 40)}", "$text-muted"))
    if snippet:
        parts.append((f"\n    “{_fit(snippet, TITLE_WIDTH + 40)}”", "$text-muted italic"))
    return Content.assemble(*parts)


class SessionPickerScreen(ModalScreen[str | None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = bindings(PICKER_KEYS)

    def __init__(self, sessions: list[SessionSummary], *, current: str | None = None, chats_dir: Path | None = None) -> None:
        super().__init__(classes="sessions")
        self.sessions = list(sessions)
        self.current = current
        self.chats_dir = chats_dir
        self.query_text = ""
        self.searching = False
        self._rows: list[SessionSummary] = []
        self._hits: list[SearchHit] = []
        self._timer: Timer | None = None
        self._generation = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-dialog"):
            yield Static(Content.assemble(("Sessions of this project", "bold"), (f"  {KEYS_HINT}", "$text-muted")), id="sessions-title")
            yield Input(placeholder="/ search: title, first prompt or anything said in the session", id="sessions-search")
            yield OptionList(id="sessions-list")
            yield Static("", id="sessions-status")

    def on_mount(self) -> None:
        self._show_all()
        self.option_list.focus()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#sessions-list", OptionList)

    @property
    def search_box(self) -> Input:
        return self.query_one("#sessions-search", Input)

    # -- the rows ---------------------------------------------------------------------------------

    def _fill(self, rows: list[SessionSummary], snippets: dict[str, str] | None = None, empty: str = NO_SESSIONS) -> None:
        option_list = self.option_list
        keep = option_list.highlighted
        option_list.clear_options()
        self._rows = list(rows)
        if not rows:
            option_list.add_option(Option(Content(empty), disabled=True))
            return
        snippets = snippets or {}
        option_list.add_options(Option(session_row(s, self.current, snippets.get(s.session_id, "")), id=s.session_id) for s in rows)
        option_list.highlighted = min(keep or 0, len(rows) - 1)

    def _show_all(self) -> None:
        self._fill(self.sessions)
        count = len(self.sessions)
        self._status(f"{count} session{'s' if count != 1 else ''}" if count else "")

    def _status(self, text: str) -> None:
        self.query_one("#sessions-status", Static).update(Content(text))

    def highlighted_summary(self) -> SessionSummary | None:
        index = self.option_list.highlighted
        if index is None or index >= len(self._rows):
            return None
        return self._rows[index]

    # -- searching ----------------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_text = " ".join(event.value.split())
        self._generation += 1  # whatever an older search still sends is for an older query
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.workers.cancel_group(self, "session-search")
        if not self.query_text:
            self.searching = False
            self._show_all()
            return
        self._timer = self.set_timer(SEARCH_DELAY, self._start_search)

    def _start_search(self) -> None:
        self._timer = None
        query = self.query_text
        if not query:
            return
        self._generation += 1
        generation = self._generation
        self._hits = []
        self.searching = True
        self._fill([], empty="Searching…")
        self._status(f"Searching for “{query}”…")
        if self.chats_dir is None:  # nothing on disk to read: the titles and prompts at hand
            needle = query.lower()
            hits = [SearchHit(s, "title", snippet_around(s.label, needle)) for s in self.sessions if needle in s.label.lower()]
            self._add_hits(generation, hits)
            self._search_done(generation)
            return
        self._search(generation, query, self.chats_dir)

    @work(thread=True, exclusive=True, group="session-search", exit_on_error=False)
    def _search(self, generation: int, query: str, chats_dir: Path) -> None:
        worker = get_current_worker()
        batch: list[SearchHit] = []
        sent = time.monotonic()
        for hit in search_sessions(chats_dir, query, stop=lambda: worker.is_cancelled):
            batch.append(hit)
            if len(batch) >= HIT_BATCH or time.monotonic() - sent >= HIT_BATCH_SECONDS:
                self.app.call_from_thread(self._add_hits, generation, batch)
                batch, sent = [], time.monotonic()
        if not worker.is_cancelled:
            self.app.call_from_thread(self._add_hits, generation, batch)
            self.app.call_from_thread(self._search_done, generation)

    def _add_hits(self, generation: int, hits: list[SearchHit]) -> None:
        """More hits: the first replace the "Searching…" row, later ones are appended."""
        if generation != self._generation or not hits:
            return
        first = not self._hits
        self._hits.extend(hits)
        if first:
            self._show_hits("Searching…")
            return
        self._rows.extend(h.summary for h in hits)
        self.option_list.add_options(Option(self._hit_row(h), id=h.summary.session_id) for h in hits)

    def _hit_row(self, hit: SearchHit) -> Content:
        return session_row(hit.summary, self.current, hit.snippet if hit.where == "message" else "")

    def _show_hits(self, empty: str) -> None:
        snippets = {h.summary.session_id: h.snippet for h in self._hits if h.where == "message"}
        self._fill([h.summary for h in self._hits], snippets, empty=empty)

    def _search_done(self, generation: int) -> None:
        if generation != self._generation:
            return
        self.searching = False
        if not self._hits:
            self._fill([], empty=f"No session mentions “{self.query_text}”.")
        self._search_status()

    def _search_status(self) -> None:
        found = len(self._hits)
        self._status(f"{found} {'sessions mention' if found != 1 else 'session mentions'} “{self.query_text}”" if found else "")

    # -- actions ------------------------------------------------------------------------------------

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(event.option.id)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_open()

    def action_open(self) -> None:
        summary = self.highlighted_summary()
        if summary is not None:
            self.dismiss(summary.session_id)

    def action_search(self) -> None:
        self.search_box.focus()

    def action_move(self, step: int) -> None:
        option_list = self.option_list
        if not self._rows:
            return
        index = option_list.highlighted
        option_list.highlighted = 0 if index is None else max(0, min(len(self._rows) - 1, index + step))

    def action_escape(self) -> None:
        """Leave or clear the search; without one, close."""
        box = self.search_box
        if box.value:
            box.value = ""  # Input.Changed shows every session again
            self.option_list.focus()
        elif box.has_focus:
            self.option_list.focus()
        else:
            self.dismiss(None)

    def action_delete(self) -> None:
        summary = self.highlighted_summary()
        if summary is None:
            return
        if summary.session_id == self.current:
            self.app.notify("That is the session you are in; it cannot be deleted.", severity="warning")
            return
        name = summary.label or "(no prompt)"
        files = ", ".join(path.name for path in session_files_to_delete(summary.path)) or summary.path.name
        question = f"Delete the session “{_fit(name, 60)}”?"
        detail = (
            f"{summary.session_id} · {human_size(summary.size)} · last written {local_time(summary.updated_at)}"
            f"{' · ' + summary.git_branch if summary.git_branch else ''}\n"
            f"Removes {files}. This cannot be undone."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._delete(summary)

        self.app.push_screen(ConfirmScreen(question, detail), answered)

    def _delete(self, summary: SessionSummary) -> None:
        try:
            delete_session(summary.path)
        except OSError as error:
            self.app.notify(f"Could not delete the session: {error}", severity="error", timeout=8)
            return
        gone = summary.session_id
        self.sessions = [s for s in self.sessions if s.session_id != gone]
        self._hits = [h for h in self._hits if h.summary.session_id != gone]
        if self.query_text:
            self._show_hits("Searching…" if self.searching else f"No session mentions “{self.query_text}”.")
            if not self.searching:
                self._search_status()
        else:
            self._show_all()
        self.app.notify(f"Deleted the session “{_fit(summary.label or gone[:8], 60)}”.")
