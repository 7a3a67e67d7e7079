"""Skills drafted from experience: after a long session, a restricted forked agent may draft one SKILL.md.

Drafts live in a hidden folder under the user skills dir, so discovery never
offers them to the model; the person keeps one (moving it into the user or
project skills dir) or discards it from the skills panel.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from collections.abc import Callable
from app.dataclass import dataclass
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from app.context.skills.discovery import PROVIDER_DIRS, SKILLS_DIR
from app.context.skills.model import SKILL_FILE, SkillLevel
from app.context.skills.parse import SkillParseError, read_skill_file
from app.core.events import SKILL_DRAFTS, BackgroundStatus
from app.core.history import Message, ToolCall
from app.core.status import StatusSink, no_status
from app.core.protocols import TurnObserver

if TYPE_CHECKING:
    from app.core.llm.provider import Provider

AUTO_SKILL_THRESHOLD = 20
DRAFTS_DIRNAME = ".drafts"
SOURCE_FILE = ".source.json"
DRAFT_MAX_REQUESTS, DRAFT_SECONDS = 6, 180.0


def drafts_dir(config_dir: Path) -> Path:
    return config_dir / "skills" / DRAFTS_DIRNAME


@dataclass
class Draft:
    """A drafted skill waiting for the person to keep or discard it, and what is known of where it came from."""

    name: str
    path: Path  # the draft's folder
    description: str = ""
    session_id: str = ""
    created_at: float = 0.0
    problem: str = ""

    @property
    def skill_file(self) -> Path:
        return self.path / SKILL_FILE


def list_drafts(config_dir: Path) -> list[Draft]:
    root = drafts_dir(config_dir)
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    drafts: list[Draft] = []
    for folder in folders:
        draft = Draft(name=folder.name, path=folder)
        try:
            source = json.loads((folder / SOURCE_FILE).read_text(encoding="utf-8"))
            draft.session_id, draft.created_at = str(source.get("sessionId", "")), float(source.get("createdAt", 0))
        except (OSError, ValueError, TypeError):
            pass
        try:
            parsed = read_skill_file(folder / SKILL_FILE, SkillLevel.USER)
            draft.description = parsed.skill.description
        except SkillParseError as exc:
            draft.problem = exc.message
        drafts.append(draft)
    return drafts


def keep_draft(draft: Draft, target_skills_dir: Path) -> Path:
    """Move a draft into a skills dir (where discovery finds it); refuses to overwrite an existing skill."""
    if draft.problem:
        raise ValueError(f"the draft {draft.name!r} cannot be kept until its SKILL.md is fixed: {draft.problem}")
    target = target_skills_dir / draft.name
    if target.exists():
        raise ValueError(f"a skill named {draft.name!r} already exists in {target_skills_dir}")
    target_skills_dir.mkdir(parents=True, exist_ok=True)
    shutil.move(str(draft.path), str(target))
    (target / SOURCE_FILE).unlink(missing_ok=True)
    return target


def discard_draft(draft: Draft) -> None:
    shutil.rmtree(draft.path)


class SkillDrafter(TurnObserver):
    """Counts the session's tool calls and, past the threshold, drafts at most one skill in the background."""

    def __init__(
        self,
        *,
        config_dir: Path,
        skill_dirs: Callable[[], list[Path]],
        session_id: str,
        enabled: bool,
        provider: Provider | None = None,
        status: StatusSink = no_status,
    ) -> None:
        self.config_dir = config_dir
        self.skill_dirs = skill_dirs
        self.session_id = session_id
        self.enabled = enabled
        self.provider = provider
        self.tool_calls = 0
        self.skills_modified = False
        self.drafted = False
        self.state = "idle"
        self.reason = ""
        self.draft_name = ""  # the draft the run wrote (kept), "" when none
        self._task: asyncio.Task[None] | None = None
        self.publish = status  # told when a drafting run ends (done or failed)

    # -- what the session does -------------------------------------------------------------------

    def tool_ran(self, call: ToolCall, args: dict[str, Any]) -> None:
        self.tool_calls += 1
        target = args.get("path") if call.name in ("write_file", "edit") else None
        if isinstance(target, str) and target.strip() and _inside_skills_dir(target, self.skill_dirs()):
            self.skills_modified = True

    # As a TurnObserver: counts the session's tool calls, drafts after a finished turn.
    def on_tool_ran(self, call: ToolCall, args: dict[str, Any]) -> None:
        self.tool_ran(call, args)

    def on_turn_end(self, history: list[Message], finished: bool) -> None:
        if finished:
            self.maybe_draft(history)

    def gate(self) -> str:
        """"" when a draft may start, else the skip reason (the spec's gate names)."""
        if not self.enabled or self.provider is None:
            return "disabled"
        if self.skills_modified:
            return "skills_modified_in_session"
        if self.tool_calls < AUTO_SKILL_THRESHOLD:
            return "below_threshold"
        if self._task is not None and not self._task.done():
            return "already_running"
        if self.drafted:
            return "already_drafted"
        return ""

    def maybe_draft(self, history: list[Message]) -> bool:
        reason = self.gate()
        if reason:
            self.state, self.reason = "skipped", reason
            return False
        self.drafted = True
        self._task = asyncio.create_task(self._draft(list(history)))
        return True

    async def _draft(self, history: list[Message]) -> None:
        from app.context.memory.agents import build_memory_agent, run_memory_agent
        from app.context.memory.manager import render_transcript

        root = drafts_dir(self.config_dir)
        root.mkdir(parents=True, exist_ok=True)
        before = {p.name for p in root.iterdir()}
        self.state, self.reason, self.draft_name = "running", "", ""
        template = Template(_template("draft")).safe_substitute(drafts_dir=str(root))
        assert self.provider is not None
        agent = build_memory_agent(self.provider, template, [root], max_requests=DRAFT_MAX_REQUESTS, time_budget=DRAFT_SECONDS)
        written: list[str] = []  # draft folders in the order the agent wrote into them
        failure = ""
        try:
            # The minutes bound the whole run, not only the gap before each request.
            run = await run_memory_agent(agent, "The session transcript:\n\n" + render_transcript(history), DRAFT_SECONDS)
            failure = run.failure
            for path in run.written:
                folder = _draft_folder(root, path)
                if folder and folder not in written:
                    written.append(folder)
        except Exception as exc:
            failure = str(exc) or type(exc).__name__
        self._finish(root, _new_drafts(root, before, written), failure)

    def _finish(self, root: Path, new: list[str], failure: str) -> None:
        """At most one draft per run (the first one written): the prompt asks for one, this makes sure."""
        extra = new[1:]
        for name in extra:
            shutil.rmtree(root / name, ignore_errors=True)
        if new:
            self.draft_name = new[0]
            (root / new[0] / SOURCE_FILE).write_text(json.dumps({"sessionId": self.session_id, "createdAt": time.time()}), encoding="utf-8")
        dropped = f"; discarded {', '.join(extra)} (at most one draft per session)" if extra else ""
        if failure:
            kept = f" (its draft {new[0]} is kept for review)" if new else ""
            self.state, self.reason = "failed", f"{failure}{kept}{dropped}"
        else:
            self.state, self.reason = "done", (f"drafted {new[0]}{dropped}" if new else "nothing reusable")
        self.publish(BackgroundStatus(source=SKILL_DRAFTS, state=self.state))

    async def drain(self, timeout: float) -> None:
        if self._task is not None and not self._task.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._task), timeout)
            except asyncio.TimeoutError:
                self._task.cancel()


def _inside_skills_dir(target: str, folders: list[Path]) -> bool:
    """Whether a write_file/edit path lands in a skills dir (``folders`` are resolved)."""
    path = Path(target).expanduser()
    if path.is_absolute():
        candidates = [path.resolve()]
    else:
        # Tools take a relative path against the project root, which the drafter is not told;
        # the project skills dirs are <root>/.qwen/skills and <root>/.agents/skills, so each
        # such dir names a root the path may be relative to.
        roots = {f.parent.parent for f in folders if f.name == SKILLS_DIR and f.parent.name in PROVIDER_DIRS}
        candidates = [(r / path).resolve() for r in roots]
    return any(c == f or f in c.parents for c in candidates for f in folders)


def _new_drafts(root: Path, before: set[str], written: list[str]) -> list[str]:
    """Draft folders the run made: those it wrote into first, in order, then any other, by name."""
    made = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")} - before
    return [name for name in written if name in made] + sorted(made - set(written))


def _draft_folder(root: Path, written: str) -> str:
    """The draft folder a written file lies in ("" for a file anywhere else)."""
    try:
        relative = Path(written).resolve().relative_to(root.resolve())
    except ValueError:
        return ""
    return relative.parts[0] if len(relative.parts) > 1 else ""


def _template(name: str) -> str:
    from app.templates import package_template

    return package_template("app.context.skills", name)
