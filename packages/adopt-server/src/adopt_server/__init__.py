"""adopt-server."""

DISTRIBUTION = "mcp-tools-adopt-server"
"""The name this package is installed under (its version is looked up by it)."""
