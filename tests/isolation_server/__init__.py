"""A server whose tools run hostile work through ``run_isolated`` (and one that does not)."""
