"""What security tests plant in a directory a server may read, and what the server must say."""

from __future__ import annotations

import os
from pathlib import Path

HARD_LINK_RULE = (
    "the file has 2 hard links, and another name of it may lie outside the allowed directories "
    "(refused unless the server runs with --allow-hard-links)"
)
"""The refusal of a file with a second name, as every server built on mcp-common words it."""


def plant_hard_link(world: Path, outside: str, inside: str, content: str) -> Path:
    """Write ``content`` to ``world/outside/<outside>`` and give that file a second name,
    ``world/allowed/<inside>``: a hard link passes every path check, so only the link count
    tells it from a file of the allowed directory. Returns the outside file."""
    secret = world / "outside" / outside
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_text(content, encoding="utf-8")
    link = world / "allowed" / inside
    link.parent.mkdir(parents=True, exist_ok=True)
    os.link(secret, link)
    return secret
