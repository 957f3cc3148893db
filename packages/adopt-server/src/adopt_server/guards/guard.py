"""What every build system's CLAUDE.md guard offers: the :class:`BuildGuard` protocol.

A guard is one module of :mod:`adopt_server.guards.builds` implementing the protocol, and
one line in its registry; the pipeline reaches guards only through
:mod:`adopt_server.guards`, which looks them up by the name a checkout's detection answers,
so no code outside the guard modules compares build names.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agent_config_check.rule_sets import RuleSet

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards.commands import BuildCommand


@dataclass(frozen=True, slots=True)
class BuildTool:
    """The project's own build tool, which an adoption runs to prove the guard passes."""

    wrapper: str
    """The wrapper script a project may commit at its root (``mvnw``), run before
    :attr:`program`."""
    program: str
    """The tool on the PATH (``mvn``)."""
    verify_args: tuple[str, ...]
    """The arguments that run only the guard (``-q -N validate``)."""
    download_advice: str
    """What to do when the wrapper cannot download the tool (no network)."""


class BuildGuard(Protocol):
    """One build system's CLAUDE.md guard: how a checkout is recognised as using it, what it
    writes, and how to tell whether it is wired in.

    Every guard also gets the committed checker script's configuration and the
    ``.gitignore`` entry (:func:`adopt_server.guards.install_guard` adds them), so a guard
    writes only what its build system needs.
    """

    @property
    def name(self) -> str:
        """The build system's name in reports, options and rule sets (``maven``)."""
        ...

    @property
    def description(self) -> str:
        """How a prompt or a message names the build system and its marker file."""
        ...

    @property
    def summary(self) -> str:
        """What the guard runs and when it fails, in one sentence."""
        ...

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path the guard may write or edit, relative to the checkout."""
        ...

    @property
    def sections(self) -> tuple[str, ...]:
        """The CLAUDE.md sections its rules require by default (none for most builds)."""
        ...

    @property
    def tool(self) -> BuildTool | None:
        """The build tool an adoption runs the guard with; ``None`` when the guard is the
        committed checker script alone, run with this server's Python."""
        ...

    def applies_to(self, files: CheckoutFiles) -> bool:
        """Whether the checkout builds with this system (reads files only)."""
        ...

    def build_command(self, files: CheckoutFiles) -> BuildCommand | None:
        """The command that builds and tests the checkout, or ``None`` when it shows none."""
        ...

    def install(self, checkout: Path, rules: RuleSet, rule_version: str | None) -> list[str]:
        """Wire the guard in; the relative paths written, ``[]`` when it is already there.
        Raises ``ValueError`` when the build files cannot be edited safely."""
        ...

    def missing(self, checkout: Path) -> list[str]:
        """What of the guard the checkout lacks, each a phrase naming the file and the
        part (``[]`` when it is wired in); read-only. Raises ``ValueError`` when the build
        files cannot be read."""
        ...

    def notes(self, checkout: Path) -> list[str]:
        """What a report should say about the guard beyond installed or not."""
        ...
