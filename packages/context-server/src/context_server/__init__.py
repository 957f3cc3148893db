"""context-server."""
