"""MCP servers: configuration, connections (the official ``mcp`` SDK), their tools and their cost.

Nothing here is imported on the start-up path unless a server is configured, and
the SDK itself is imported in a worker thread when the first server connects
(it takes most of a second to import on a loaded machine).
"""
