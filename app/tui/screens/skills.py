"""The skills panel: every skill by level with its status.

Enter puts ``/name`` in the prompt to run the skill (as Qwen Code does), r reads
SKILL.md, space enables or disables, / searches names and descriptions.
"""

from __future__ import annotations

from app.dataclass import dataclass
from itertools import groupby
from pathlib import Path
from textwrap import shorten

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from app.context.skills import SkillEntry, SkillManager, SkillStatus
from app.context.skills.model import SkillLevel
from app.context.skills.drafts import Draft, discard_draft, keep_draft, list_drafts
from app.context.skills.listing_text import LEVEL_TITLES, MARKS
from app.core.events import SKILLS_ON_DISK
from app.tui.background_status import BackgroundStatusChanged

COLOURS = {
    SkillStatus.AVAILABLE: "$success",
    SkillStatus.WAITING: "$warning",
    SkillStatus.USER_ONLY: "$accent",
    SkillStatus.DISABLED: "$text-muted",
    SkillStatus.SHADOWED: "$text-muted",
    SkillStatus.ERROR: "$error",
}


def _brief(text: str) -> str:
    """A description on about two rows, cut at a word with an ellipsis."""
    return shorten(text, 160, placeholder=" …")


def entry_line(entry: SkillEntry, activated_by: str | None) -> Content:
    mark, label = MARKS.get(entry.status, ("?", str(entry.status)))
    colour = COLOURS.get(entry.status, "$text-muted")
    description = entry.skill.description if entry.skill else ""
    line = f"[{colour}]{mark}[/] [b]{escape(entry.name)}[/b]  [$text-muted]{escape(label)}[/]"
    if activated_by:
        line += f" [$success](activated by {escape(activated_by)})[/]"
    if description:
        line += f"\n    {escape(_brief(description))}"
    if entry.message:
        line += f"\n    [{colour}]{escape(entry.message[:200])}[/]"
    return Content.from_markup(line)


def draft_line(draft: Draft) -> Content:
    source = f" [$text-muted](session {escape(draft.session_id[:8])})[/]" if draft.session_id else ""
    line = f"[$warning]✎[/] [b]{escape(draft.name)}[/b]{source}"
    if draft.description:
        line += f"\n    {escape(_brief(draft.description))}"
    if draft.problem:
        line += f"\n    [$error]{escape(draft.problem[:200])}[/]"
    return Content.from_markup(line)


class KeepDraftScreen(ModalScreen[str | None]):
    """Where a kept draft goes: u (your skills, every project) or p (this project's .qwen/skills)."""

    CSS_PATH = Path(__file__).with_name("confirm.tcss")  # the look of the yes/no question

    BINDINGS = [
        Binding("u", "choose('user')", "User", id="keep_user"),
        Binding("p", "choose('project')", "Project", id="keep_project"),
        Binding("escape,n", "choose('')", "Cancel", id="keep_cancel"),
    ]

    def __init__(self, name: str) -> None:
        super().__init__(classes="confirm")
        self.skill_name = name

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(Content(f"Keep the draft skill {self.skill_name!r} where?"), id="confirm-question")
            yield Static(Content.from_markup("[b]u[/b] your skills (every project)  ·  [b]p[/b] this project (.qwen/skills)  ·  [b]esc[/b] cancel"), id="confirm-keys")

    def action_choose(self, where: str) -> None:
        self.dismiss(where or None)


def matches_query(query: str, name: str, description: str) -> bool:
    """Every word of the query is in the name or the description; or the query's letters appear in the name in order."""
    words = query.lower().split()
    if not words:
        return True
    haystack = f"{name} {description}".lower()
    if all(word in haystack for word in words):
        return True
    letters = iter(name.lower())
    return all(char in letters for char in "".join(words))


RUNNABLE = (SkillStatus.AVAILABLE, SkillStatus.USER_ONLY, SkillStatus.WAITING)


class SkillsScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = [
        Binding("escape", "close", "Close", id="skills_close"),
        Binding("q", "close", "Close", id="skills_close_q", show=False),
        Binding("enter", "use", "Run (puts /name in the prompt)", id="skills_use", show=False),
        Binding("r", "open", "Read SKILL.md", id="skills_open", show=False),
        Binding("slash", "search", "Search", id="skills_search", show=False),
        Binding("space", "toggle", "Enable / disable", id="skills_toggle"),
        Binding("k", "keep_draft", "Keep draft", id="skills_keep_draft", show=False),
        Binding("x", "discard_draft", "Discard draft", id="skills_discard_draft", show=False),
    ]
    DRAFT_PREFIX = "draft:"

    @dataclass
    class Toggled(Message):
        """Space on a skill: it was enabled or disabled (for this project only, when the repository brought it)."""

        name: str
        disabled: bool
        project: bool = False  # a skill the repository brought: switched for this project only

    @dataclass
    class Use(Message):
        """Enter on a skill: the app puts ``/name `` in the prompt for the person to add arguments and send."""

        name: str

    def __init__(self, manager: SkillManager, *, config_dir: Path | None = None, project_root: Path | None = None) -> None:
        super().__init__(classes="skills")
        self.manager = manager
        self.config_dir = config_dir
        self.project_root = project_root
        self.query_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="skills-dialog"):
            yield Static(
                Content.from_markup("[b]Skills[/b]  [$text-muted]enter runs · r reads · / searches · space enables/disables · drafts: k keeps, x discards · esc closes[/]"),
                id="skills-title",
            )
            yield Input(placeholder="/ search: name or description", id="skills-search")
            yield OptionList(id="skills-list")

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def on_background_status_changed(self, message: BackgroundStatusChanged) -> None:
        if message.status.source == SKILLS_ON_DISK:
            self._fill()

    def _fill(self) -> None:
        option_list = self.query_one(OptionList)
        highlighted = option_list.highlighted
        option_list.clear_options()
        shown = [e for e in self.manager.skills if matches_query(self.query_text, e.name, e.skill.description if e.skill else "")]
        if self.query_text and not shown:
            option_list.add_option(Option(Content(f"No skill matches '{self.query_text}'."), disabled=True))
        for level, entries in groupby(shown, key=lambda e: e.level.value if e.level else None):
            option_list.add_option(Option(Content.from_markup(f"[b $accent]{LEVEL_TITLES.get(level, level)}[/]"), disabled=True))
            for entry in entries:
                option_list.add_option(Option(entry_line(entry, self.manager.activated_by.get(entry.name)), id=f"{entry.path}"))
        drafts = [d for d in self._drafts() if matches_query(self.query_text, d.name, d.description)]
        if drafts:
            option_list.add_option(Option(Content.from_markup("[b $accent]Drafts[/] [$text-muted](never offered to the model until kept)[/]"), disabled=True))
            for draft in drafts:
                option_list.add_option(Option(draft_line(draft), id=f"{self.DRAFT_PREFIX}{draft.path}"))
        if highlighted is not None and option_list.option_count:
            option_list.highlighted = min(highlighted, option_list.option_count - 1)
        elif option_list.option_count > 1:
            option_list.highlighted = 1

    def _selected(self) -> SkillEntry | None:
        option_list = self.query_one(OptionList)
        if option_list.highlighted is None:
            return None
        option_id = option_list.get_option_at_index(option_list.highlighted).id
        return next((e for e in self.manager.skills if str(e.path) == option_id), None)

    def _drafts(self) -> list[Draft]:
        return list_drafts(self.config_dir) if self.config_dir is not None else []

    def _selected_draft(self) -> Draft | None:
        option_list = self.query_one(OptionList)
        if option_list.highlighted is None:
            return None
        option_id = option_list.get_option_at_index(option_list.highlighted).id or ""
        if not option_id.startswith(self.DRAFT_PREFIX):
            return None
        path = option_id[len(self.DRAFT_PREFIX) :]
        return next((d for d in self._drafts() if str(d.path) == path), None)

    def action_keep_draft(self) -> None:
        draft = self._selected_draft()
        if draft is None:
            return

        def chosen(where: str | None) -> None:
            if where is None or self.config_dir is None:
                return
            target = self.config_dir / "skills" if where == "user" else (self.project_root or Path.cwd()) / ".qwen" / "skills"
            try:
                kept = keep_draft(draft, target)
            except (ValueError, OSError) as exc:
                self.app.notify(f"Could not keep the draft: {exc}", severity="error")
                return
            self.manager.reload()
            self.app.notify(f"Kept {draft.name} in {kept.parent}.")
            self._fill()

        self.app.push_screen(KeepDraftScreen(draft.name), chosen)

    def action_discard_draft(self) -> None:
        from app.tui.screens.confirm import ConfirmScreen

        draft = self._selected_draft()
        if draft is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                discard_draft(draft)
                self.app.notify(f"Discarded the draft {draft.name}.")
                self._fill()

        self.app.push_screen(ConfirmScreen(f"Discard the draft skill {draft.name!r}?", f"This deletes {draft.path}."), answered)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_use()

    def action_use(self) -> None:
        """Run the highlighted skill; a draft (never offered until kept) is read instead."""
        if self._selected_draft() is not None:
            self.action_open()
            return
        entry = self._selected()
        if entry is None or entry.skill is None:
            return
        if entry.status not in RUNNABLE:
            self.app.notify(f"Skill {entry.name} is {entry.status.value.replace('_', ' ')}; it cannot be run.", severity="warning")
            return
        self.post_message(self.Use(entry.skill.name))
        self.dismiss(None)

    def action_search(self) -> None:
        self.query_one("#skills-search", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        self._fill()
        option_list = self.query_one(OptionList)
        first = next((i for i in range(option_list.option_count) if not option_list.get_option_at_index(i).disabled), None)
        option_list.highlighted = first

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one(OptionList).focus()  # Enter in the search box goes to the list; Enter again runs

    def action_open(self) -> None:
        from app.tui.screens.text_view import TextScreen

        draft = self._selected_draft()
        if draft is not None:
            body = draft.skill_file.read_text(encoding="utf-8", errors="replace") if draft.skill_file.is_file() else "(no SKILL.md)"
            source = f"drafted in session {draft.session_id[:8]}" if draft.session_id else "draft"
            self.app.push_screen(TextScreen(draft.name, body, subtitle=source))
            return
        entry = self._selected()
        if entry is None:
            return
        path = entry.path if entry.path.name == "SKILL.md" or entry.path.is_file() else entry.path / "SKILL.md"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            text = f"Cannot read {path}: {exc.strerror or exc}"
        self.app.push_screen(TextScreen(entry.name, text, subtitle=str(path)))

    def action_toggle(self) -> None:
        entry = self._selected()
        if entry is None or entry.skill is None:
            return
        disabled = entry.status is not SkillStatus.DISABLED
        self.manager.set_disabled(entry.name, disabled)
        self.post_message(self.Toggled(entry.name, disabled, project=entry.level is SkillLevel.PROJECT))
        self._fill()

    def action_close(self) -> None:
        search = self.query_one("#skills-search", Input)
        if search.has_focus and search.value:
            search.value = ""  # Esc clears the search first, then closes
            self.query_one(OptionList).focus()
            return
        self.dismiss(None)
