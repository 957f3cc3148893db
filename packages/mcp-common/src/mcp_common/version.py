"""Package versions from installed metadata."""

from __future__ import annotations

from importlib import metadata

DISTRIBUTION = "mcp-tools-common"
"""The name mcp-common is installed under."""


def package_version(distribution: str) -> str:
    """The installed version of ``distribution``, or ``unknown`` when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"
