"""The layered system prompt: named sections from packaged Markdown templates."""

from app.context.prompt.env_path import EnvPath, resolve_path_from_env
from app.context.prompt.git_info import GitInfo, read_git_info
from app.context.prompt.sections import PromptSection, SystemPrompt
from app.context.prompt.suffix import suffix
from app.context.prompt.system_md import SystemPromptError
from app.context.prompt.system_prompt import PromptContext, build_system_prompt
from app.context.prompt.tool_style import tool_call_style

__all__ = [
    "EnvPath",
    "GitInfo",
    "PromptContext",
    "PromptSection",
    "SystemPrompt",
    "SystemPromptError",
    "build_system_prompt",
    "read_git_info",
    "resolve_path_from_env",
    "suffix",
    "tool_call_style",
]
