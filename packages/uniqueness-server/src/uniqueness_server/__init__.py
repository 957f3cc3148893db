"""uniqueness-server."""

DISTRIBUTION = "mcp-tools-uniqueness-server"
"""The name this package is installed under (its version is looked up by it)."""


def extra_hint(extra: str) -> str:
    """How to install the optional part ``extra`` (``postgres``, ``excel``, ``spark``), for
    the one error line that says it is missing."""
    return f"install the {extra} extra: pip install '{DISTRIBUTION}[{extra}]'"
