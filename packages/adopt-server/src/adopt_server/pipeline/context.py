"""The immutable context every step of one repository's adoption shares."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.pipeline.options import AdoptionOptions
from adopt_server.pipeline.runner import CommandError, CommandResult, CommandRunner
from adopt_server.pipeline.trust import ProjectTrust
from adopt_server.pipeline.urls import RepositoryUrl

_ASKPASS = """#!/bin/sh
# Answers git's credential prompts from the environment, so a token never touches argv,
# .git/config or FETCH_HEAD. Written by claude-adopt for one run and deleted afterwards.
case "$1" in
  Username*) printf '%s\\n' "$CLAUDE_ADOPT_GIT_USERNAME" ;;
  *) printf '%s\\n' "$CLAUDE_ADOPT_GIT_PASSWORD" ;;
esac
"""


class CredentialHelper:
    """A private ``GIT_ASKPASS`` script for one run; a context manager that removes it."""

    def __init__(self) -> None:
        self._directory = Path(tempfile.mkdtemp(prefix="claude-adopt-askpass-"))
        self.path = self._directory / "askpass.sh"
        self.path.write_text(_ASKPASS, encoding="utf-8")
        self.path.chmod(stat.S_IRWXU)

    def environment(self, url: RepositoryUrl) -> dict[str, str]:
        """Environment that makes git answer its prompts with ``url``'s credentials."""
        if not url.has_credentials:
            return {}
        username = url.username or ""
        # a bare token as user name (https://TOKEN@host) is the password for GitHub
        password = url.password if url.password is not None else ""
        if url.password is None:
            username, password = "x-access-token", username
        return {
            "GIT_ASKPASS": str(self.path),
            "CLAUDE_ADOPT_GIT_USERNAME": username,
            "CLAUDE_ADOPT_GIT_PASSWORD": password,
        }

    def close(self) -> None:
        """Delete the script."""
        shutil.rmtree(self._directory, ignore_errors=True)

    def __enter__(self) -> CredentialHelper:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class RepoContext:
    """What every step of one repository needs; never mutated by a step.

    ``reused`` says the checkout existed before this run (it is resumed, never deleted).
    ``trust`` is the checkout's trust in ``~/.claude.json``, taken back when the run ends.
    ``git_env`` carries the credential prompt answers for commands that reach the remote.
    ``warn`` records a warning in the repository's report; ``pull_request_gate`` blocks until
    the campaign's rate limit allows one more pull request; ``closed`` records a pull request
    the run closed; ``cancelled`` says the caller wants the run to stop (a long check is
    killed as soon as it does).
    """

    url: RepositoryUrl
    workspace: Path
    checkout: Path
    reused: bool
    options: AdoptionOptions
    runner: CommandRunner
    trust: ProjectTrust
    git_env: Mapping[str, str] = field(default_factory=dict)
    log: Callable[[str], None] = lambda message: None
    warn: Callable[[str], None] = lambda message: None
    pull_request_gate: Callable[[], None] = lambda: None
    closed: Callable[[str], None] = lambda url: None
    cancelled: Callable[[], bool] = lambda: False

    def git(self, *args: str, remote: bool = False) -> CommandResult:
        """Run ``git <args>`` in the checkout; ``remote`` adds the credential answers and
        switches off credential helpers so git cannot store the token anywhere."""
        if remote and self.git_env:
            argv = ["git", "-c", "credential.helper=", *args]
            return self.runner.run(self.checkout, argv, env=self.git_env)
        return self.runner.run(self.checkout, ["git", *args])

    def git_or_fail(self, step: str, *args: str, remote: bool = False) -> CommandResult:
        """:meth:`git`, raising a masked step failure on a non-zero exit."""
        result = self.git(*args, remote=remote)
        if not result.ok:
            raise CommandError(result.describe_failure(step))
        return result

    @property
    def files(self) -> CheckoutFiles:
        """The checkout's files, each read or written confined to the checkout."""
        return CheckoutFiles(self.checkout)

    def path_exists(self, relative: str) -> bool:
        """Whether ``relative`` exists in the checkout (a symlink counts, even dangling)."""
        return os.path.lexists(self.checkout / relative)
