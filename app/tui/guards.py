"""The checks a command makes before it needs the runtime or a free model, each with the sentence it shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.runtime import Runtime
    from app.tui.host import TuiHost

STARTING_UP = "Still starting up; try again in a moment."
TURN_RUNNING = "A turn is running; wait for it or press Esc first."


def idle_model(host: TuiHost, command: str) -> Runtime | None:
    """The runtime when a model is configured and no turn is running; otherwise None, after saying why."""
    runtime = host.runtime
    if runtime is None:
        host.notify(STARTING_UP, severity="warning")
        return None
    if runtime.agent is None:
        host.notify(f"{command} needs a model: configure an endpoint first (F1 for help).", severity="error")
        return None
    if runtime.agent.busy:
        host.notify(TURN_RUNNING, severity="warning")
        return None
    return runtime
