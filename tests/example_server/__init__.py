"""A tiny MCP server used by the end-to-end tests: ``echo``, ``slow``, ``boom``."""
