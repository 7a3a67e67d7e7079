"""The checks a command makes before it needs the runtime or a free model, each with the sentence it shows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.runtime import Runtime

STARTING_UP = "Still starting up; try again in a moment."
TURN_RUNNING = "A turn is running; wait for it or press Esc first."


def idle_model(app: Any, command: str) -> Runtime | None:
    """The runtime when a model is configured and no turn is running; otherwise None, after saying why."""
    runtime: Runtime | None = app.runtime
    if runtime is None:
        app.notify(STARTING_UP, severity="warning")
        return None
    if runtime.agent is None:
        app.notify(f"{command} needs a model: configure an endpoint first (F1 for help).", severity="error")
        return None
    if runtime.agent.busy:
        app.notify(TURN_RUNNING, severity="warning")
        return None
    return runtime
