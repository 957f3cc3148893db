"""context-server."""

DISTRIBUTION = "mcp-tools-context-server"
"""The name this package is installed under (its version is looked up by it)."""
