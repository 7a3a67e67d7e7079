"""The skills' part of a turn (a TurnObserver): activation on touched paths, grants held until the turn ends.

A skill that is loaded may allow tools for the rest of the turn (its ``allowedTools``);
the grant is revoked when the turn ends, however it ends.
"""

from __future__ import annotations

from typing import Any

from app.context.skills.grants import SkillGrant, SkillGrantPolicy, grant_allowed_tools, revoke_grant
from app.context.skills.manager import SkillManager
from app.context.skills.model import SkillInvocation
from app.context.skills.touched import touched_paths
from app.core.history import Message, ToolCall
from app.core.protocols import TurnObserver


class SkillTurns(TurnObserver):
    def __init__(self, skills: SkillManager, policy: SkillGrantPolicy) -> None:
        self.skills = skills
        self.policy = policy
        self.grants: list[SkillGrant] = []

    def invoked(self, invocation: SkillInvocation) -> None:
        """The skill tool loaded a skill (SkillTool's ``on_invoke``): its allowedTools hold for this turn."""
        self.grants.append(grant_allowed_tools(self.policy, invocation))

    def on_tool_ran(self, call: ToolCall, args: dict[str, Any]) -> None:
        self.skills.observe_paths(touched_paths(call.name, args))

    def on_turn_end(self, history: list[Message], finished: bool) -> None:
        while self.grants:
            revoke_grant(self.policy, self.grants.pop())
