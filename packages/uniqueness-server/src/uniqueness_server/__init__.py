"""uniqueness-server."""

DISTRIBUTION = "mcp-tools-uniqueness-server"
"""The name this package is installed under (its version is looked up by it)."""
