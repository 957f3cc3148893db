"""adopt-server."""
