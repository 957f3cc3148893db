"""What security tests plant in a directory a server may read, and what the server must say."""

from __future__ import annotations

import os
import shutil
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


ANCESTOR_ENVIRON_THIEF = r"""
pid=$$
while [ "${pid:-0}" -gt 1 ]; do
  echo "== process $pid"
  cat "/proc/$pid/environ" 2>&1 | tr '\0' '\n'
  pid=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status")
done
"""
"""A shell script that prints the environment its own shell and every ancestor of it started
with, read from ``/proc/<pid>/environ`` by a child (``cat``), each after a line
``== process <pid>``, an error line where the read is refused: what an untrusted child running
as the server's user tries first. Its own shell comes first, read by its child as the
server's child reads the server: that read succeeding shows the attack works where nothing
refuses it."""


def same_user_without_ptrace() -> list[str] | None:
    """The words to put before a command so that it runs as this user without the capability
    that reads any process's ``/proc/<pid>/environ`` and memory (``CAP_SYS_PTRACE``), as an
    attacker of the same user runs: nothing for an ordinary user; for root, ``setpriv``
    dropping every capability (still uid 0, so still the owner of root's files). ``None``
    when root has no ``setpriv`` to do it."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--inh-caps=-all", "--bounding-set=-all", "--"]
