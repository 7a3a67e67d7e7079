"""``/mcp`` and ``agentctx-tui mcp list``: servers, status, transport, tools and tokens per server."""

from __future__ import annotations

from app.mcp.manager import ServerRow


def _fmt(n: int) -> str:
    return f"{n:,}"


def servers_text(rows: list[ServerRow], *, problems: list[str], deferred: bool = False, budget: int = 0, detail: bool = True) -> str:
    if not rows and not problems:
        return "No MCP servers are configured. Add them under mcpServers in settings.yaml (or Qwen Code's .qwen/settings.json)."
    lines: list[str] = []
    for row in rows:
        trust = " · trusted" if row.trust else ""
        lines.append(f"{row.name}  [{row.status}]  {row.transport} · {row.layer}{trust}")
        lines.append(f"  {row.target}")
        if row.error:
            lines.append(f"  error: {row.error}")
        if row.stderr_tail:
            lines.append("  stderr (last lines):")
            lines.extend(f"    {line}" for line in row.stderr_tail.splitlines()[-8:])
        if row.tools:
            sent = f", {_fmt(row.sent_tokens)} tok sent per request" if row.sent_tokens != row.schema_tokens else ""
            lines.append(f"  {len(row.tools)} tools · {_fmt(row.schema_tokens)} tok of schemas{sent}")
            if detail:
                for tool in row.tools[:50]:
                    mark = " (deferred)" if tool["deferred"] else ""
                    lines.append(f"    {tool['name']:<40} {_fmt(tool['tokens']):>6} tok{mark}")
                if len(row.tools) > 50:
                    lines.append(f"    … and {len(row.tools) - 50} more")
        if row.prompts:
            lines.append("  prompts: " + " · ".join(row.prompts[:10]) + (" …" if len(row.prompts) > 10 else ""))
        if row.resources:
            lines.append("  resources: " + " · ".join(row.resources[:10]) + (" …" if len(row.resources) > 10 else ""))
        lines.append("")
    if deferred:
        lines.append(
            f"MCP schemas pass {_fmt(budget)} tok (mcp.deferred_share of the window): they are deferred behind tool_search, "
            "which lists them and loads a tool's schema when the model asks for it."
        )
    for problem in problems:
        lines.append(f"⚠ {problem}")
    return "\n".join(lines).rstrip()
