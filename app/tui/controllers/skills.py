"""The skills panel, its enable/disable persisted in settings, and hot reload while the app runs, the / commands that follow them, and news of a drafted skill."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from app.config import SettingsError
from app.tui.commands import skill_commands

if TYPE_CHECKING:
    from app.context.skills import SkillManager
    from app.context.skills.drafts import SkillDrafter
    from app.tui.screens.skills import SkillsScreen
    from app.runtime import Runtime
    from app.tui.host import TuiHost


class SkillsController:
    def __init__(self, host: TuiHost) -> None:
        self.host = host
        self._refresh_commands: Callable[[], None] = lambda: None

    def panel(self) -> None:
        if self.host.runtime is None:
            self.host.notify("Still starting up; try again in a moment.", severity="warning")
            return
        from app.tui.screens.skills import SkillsScreen  # the skills package loads on first use

        runtime = self.host.runtime
        self.host.push_screen(SkillsScreen(runtime.skills, config_dir=runtime.paths.config_dir, project_root=runtime.paths.project_root))

    def toggled(self, message: SkillsScreen.Toggled) -> None:
        state = "disabled" if message.disabled else "enabled"
        if message.project:
            from app.context.skills.switches import set_project_disabled

            try:
                path = set_project_disabled(self.host.paths, message.name, message.disabled)
            except OSError as exc:
                self.host.notify(f"Could not save that {message.name} is {state}: {exc}", severity="error")
                return
            self.host.notify(f"Skill {message.name} {state} for this project (saved in {path}).")
            return
        settings = self.host.settings
        disabled = set(settings.skills.disabled)
        (disabled.add if message.disabled else disabled.discard)(message.name)
        settings.skills.disabled = sorted(disabled)
        from app.settings_file import update_setting

        path = self.host.paths.user_settings_file
        try:
            update_setting(path, "skills.disabled", settings.skills.disabled)
        except (SettingsError, OSError) as exc:
            self.host.notify(f"Could not save skills.disabled: {exc}", severity="error")
            return
        self.host.notify(f"Skill {message.name} {state} (saved in {path}).")

    def use(self, message: SkillsScreen.Use) -> None:
        prompt = self.host.prompt
        prompt.load_text(f"/{message.name.lower()} ")
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    def watch_skills(self, manager: SkillManager) -> None:
        """Hot reload: a skill added, edited or removed on disk shows up without a restart."""
        work = partial(self._watch_skills, manager)
        self.host.run_worker(work, name="_watch_skills", group="skills-watch", exclusive=True, exit_on_error=False)

    async def _watch_skills(self, manager: SkillManager) -> None:
        from app.context.skills import watch_skills

        stop = asyncio.Event()
        try:
            await watch_skills(manager, stop)
        finally:
            stop.set()

    def follow_commands(self, runtime: Runtime) -> None:
        """Every skill a person may run is a /command; the list follows skills added or disabled."""
        from app.context.skills import SkillStatus

        runnable = (SkillStatus.AVAILABLE, SkillStatus.USER_ONLY, SkillStatus.WAITING)

        def refresh() -> None:
            entries = [e for e in runtime.skills.skills if e.skill is not None and e.status in runnable]
            self.host.prompt.extra_commands = skill_commands((e.skill.name, e.skill.description) for e in entries if e.skill)

        refresh()
        self._refresh_commands = refresh  # again on each SKILLS_ON_DISK status

    def skills_changed(self) -> None:
        self._refresh_commands()

    # -- skills drafted in the background --------------------------------------------------------

    def draft_finished(self, drafter: SkillDrafter) -> None:
        if self.host.runtime is None or self.host.runtime.drafter is not drafter:
            return  # a session left behind: its news is not about this one
        if drafter.state == "failed":
            self.host.notify(f"Could not draft a skill from this session: {drafter.reason}", severity="warning", timeout=10)
        elif drafter.draft_name:
            self.host.notify(f"Drafted a skill from this session: {drafter.draft_name} — F4 to review it", timeout=10)
