"""Shown when no model endpoint is configured: how to point the app at one."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from app.paths import Paths
from app.tui.keys import GLOBAL_KEYS


def first_run_text(paths: Paths) -> str:
    user_file = escape(str(paths.user_settings_file))
    project_file = escape(str(paths.project_settings_file))
    return f"""[b]No model endpoint is configured yet.[/b]
agentctx talks to any OpenAI-compatible endpoint (OpenAI, DashScope/Qwen, vLLM, Ollama, llama.cpp, OpenRouter).

[b $accent]Either set three environment variables[/]
  [b]OPENAI_BASE_URL[/b]  the endpoint, ending in /v1   e.g. http://localhost:11434/v1
  [b]OPENAI_API_KEY[/b]   the key (any text for local servers)
  [b]OPENAI_MODEL[/b]     the model name                e.g. qwen3-coder-plus

[b $accent]or write them in a settings file[/]
  {user_file}   (yours, every project)
  {project_file}   (this project, once trusted)

  [$text-muted]model:
    base_url: http://localhost:11434/v1
    api_key: sk-...
    name: qwen3-coder-plus
    context_window: 131072   # optional[/]

Then restart agentctx-tui. To try it with no key at all: [b]make demo[/b].
Everything that needs no model works now: [b]F1[/b] help, [b]ctrl+r[/b] earlier sessions, [b]ctrl+p[/b] commands."""


# The text promises these work now: a modal screen would otherwise keep the app's keys from them.
_APP_KEYS_HERE = ("help", "sessions")


class FirstRunScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")  # absolute: a subclass elsewhere finds it too
    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="first_run_close"),
        *(
            Binding(spec.key, f"app.{spec.action}", spec.description, show=False, id=spec.id)
            for spec in GLOBAL_KEYS
            if spec.id in _APP_KEYS_HERE
        ),
    ]

    def __init__(self, paths: Paths) -> None:
        super().__init__(classes="first-run")
        self.paths = paths

    def compose(self) -> ComposeResult:
        with Vertical(id="first-run-dialog"):
            yield Static(Content.from_markup("[b]Welcome to agentctx[/b]  [$text-muted](esc or enter closes)[/]"), id="first-run-title")
            with VerticalScroll(id="first-run-body"):
                yield Static(Content.from_markup(first_run_text(self.paths)))

    def action_close(self) -> None:
        self.dismiss(None)
