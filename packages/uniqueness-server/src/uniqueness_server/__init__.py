"""uniqueness-server."""
