"""agentctx-tui: a terminal coding agent that shows what enters the model's context window."""

__version__ = "0.1.0"
