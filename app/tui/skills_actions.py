"""The skills panel, its enable/disable persisted in settings, and hot reload while the app runs. A mixin of the App."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import work

from app.config import SettingsError

if TYPE_CHECKING:
    from app.context.skills import SkillManager
    from app.context.skills.drafts import SkillDrafter
    from app.tui.screens.skills import SkillsScreen
    from app.runtime import Runtime


class SkillsActions:
    runtime: Runtime | None

    def action_skills(self) -> None:
        if self.runtime is None:
            self.notify("Still starting up; try again in a moment.", severity="warning")  # type: ignore[attr-defined]
            return
        from app.tui.screens.skills import SkillsScreen  # the skills package loads on first use

        runtime = self.runtime
        self.push_screen(SkillsScreen(runtime.skills, config_dir=runtime.paths.config_dir, project_root=runtime.paths.project_root))  # type: ignore[attr-defined]

    def on_skills_screen_toggled(self, message: SkillsScreen.Toggled) -> None:
        state = "disabled" if message.disabled else "enabled"
        if message.project:
            from app.context.skills.switches import set_project_disabled

            try:
                path = set_project_disabled(self.paths, message.name, message.disabled)  # type: ignore[attr-defined]
            except OSError as exc:
                self.notify(f"Could not save that {message.name} is {state}: {exc}", severity="error")  # type: ignore[attr-defined]
                return
            self.notify(f"Skill {message.name} {state} for this project (saved in {path}).")  # type: ignore[attr-defined]
            return
        settings = self.settings  # type: ignore[attr-defined]
        disabled = set(settings.skills.disabled)
        (disabled.add if message.disabled else disabled.discard)(message.name)
        settings.skills.disabled = sorted(disabled)
        from app.settings_file import update_setting

        path = self.paths.user_settings_file  # type: ignore[attr-defined]
        try:
            update_setting(path, "skills.disabled", settings.skills.disabled)
        except (SettingsError, OSError) as exc:
            self.notify(f"Could not save skills.disabled: {exc}", severity="error")  # type: ignore[attr-defined]
            return
        self.notify(f"Skill {message.name} {state} (saved in {path}).")  # type: ignore[attr-defined]

    def on_skills_screen_use(self, message: SkillsScreen.Use) -> None:
        prompt = self.prompt  # type: ignore[attr-defined]
        prompt.load_text(f"/{message.name.lower()} ")
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    @work(exclusive=True, group="skills-watch", exit_on_error=False)
    async def _watch_skills(self, manager: SkillManager) -> None:
        """Hot reload: a skill added, edited or removed on disk shows up without a restart."""
        from app.context.skills import watch_skills

        stop = asyncio.Event()
        try:
            await watch_skills(manager, stop)
        finally:
            stop.set()

    # -- skills drafted in the background --------------------------------------------------------

    def _tell_draft_outcome(self, drafter: SkillDrafter) -> None:
        if self.runtime is None or self.runtime.drafter is not drafter:
            return  # a session left behind: its news is not about this one
        if drafter.state == "failed":
            self.notify(f"Could not draft a skill from this session: {drafter.reason}", severity="warning", timeout=10)  # type: ignore[attr-defined]
        elif drafter.draft_name:
            self.notify(f"Drafted a skill from this session: {drafter.draft_name} — F4 to review it", timeout=10)  # type: ignore[attr-defined]
