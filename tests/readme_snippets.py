"""The code blocks of the READMEs, for the tests that check or run them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALL_SECTION = "Install and connect a client"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def readme(server: str) -> str:
    """The README of the package in ``packages/<server>``."""
    return (ROOT / "packages" / server / "README.md").read_text("utf-8")


def client_section(server: str) -> str:
    """The README's install and client setup section: the one carrying the registry marker."""
    sections = [
        section
        for section in re.split(r"(?m)^## ", readme(server))
        if section.startswith(INSTALL_SECTION) and "mcp-name:" in section
    ]
    assert len(sections) == 1, f"{server} README needs one '## {INSTALL_SECTION}' with mcp-name"
    return sections[0]


def fenced(text: str, language: str) -> list[str]:
    """The bodies of the code blocks of ``language`` in ``text``, in order."""
    return [body for lang, body in FENCE.findall(text) if lang == language]


def shell_lines(text: str) -> list[str]:
    """The command lines of the ``sh`` blocks of ``text``: continuations joined, comments and
    blank lines dropped."""
    lines = []
    for block in fenced(text, "sh"):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(line.strip())
    return lines
