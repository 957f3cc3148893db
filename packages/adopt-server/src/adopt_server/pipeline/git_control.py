"""What a command run in the checkout must leave as it was: everything that would make the
adoption's next git call there run a command.

``claude`` and the repository's own build wrapper or formatter run in the checkout, and git
runs there after them with the server's whole environment (``git checkout -b``, ``commit``,
``push`` with the credential answers). A hook, a ``core.fsmonitor``, a filter driver or an
include they wrote would run with every token the build was kept from (a planted
``post-checkout`` printed ``GH_TOKEN``). So the checkout's git configuration, hooks and
attributes, and the user's global git configuration, are compared before and after each such
command; a change fails the step before git runs there again. A checkout kept from an
earlier run is resumed only while its git directory holds nothing a clone would not
(:func:`refuse_planted`): what a run that failed left there must not run at the next one.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError

# what git reads from a git directory and could be made to run a command by
_GIT_CONTROL = ("config", "config.worktree", "hooks", "info/attributes")
# the keys of a checkout's own configuration that a clone, the adoption's branch and push,
# or a person committing by hand write; none of them makes git run anything
_CLONE_KEYS = re.compile(
    r"core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|"
    r"precomposeunicode|symlinks)|extensions\.objectformat|remote\.origin\.(url|fetch)|"
    r"branch\..+\.(remote|merge)|user\.(name|email)"
)


def refuse_planted(ctx: RepoContext, step: str) -> None:
    """Fail ``step`` unless the kept checkout's git directories (a linked worktree's and its
    repository's) hold only what a clone and an adoption write: no hook (git's ``*.sample``
    files aside), no ``config.worktree`` or ``info/attributes``, no configuration key but
    :data:`_CLONE_KEYS`. Runs no git command that could run one of them (``rev-parse`` and
    ``config --file`` read files only)."""
    found: list[str] = []
    for git_dir in _git_dirs(ctx, step):
        hooks = git_dir / "hooks"
        if hooks.is_symlink() or (hooks.exists() and not hooks.is_dir()):
            found.append(str(hooks))
        elif hooks.is_dir():
            found += [str(entry) for entry in sorted(hooks.iterdir()) if entry.suffix != ".sample"]
        found += [
            str(git_dir / name)
            for name in ("config.worktree", "info/attributes")
            if os.path.lexists(git_dir / name)
        ]
        if (git_dir / "config").is_file():
            listed = ctx.git_or_fail(
                step, "config", "--file", str(git_dir / "config"), "--list", "--name-only"
            )
            found += [
                f"{key} in {git_dir / 'config'}"
                for key in listed.transcript.split()
                if not _CLONE_KEYS.fullmatch(key)
            ]
    if found:
        raise StepError(
            f"{ctx.checkout} is a kept checkout whose git directory holds what a clone does not "
            f"({', '.join(found)}): it could make git run a command there, and an earlier "
            "run ran the repository's build or claude in it. Read those files without running "
            "git in it, then delete the checkout or use another workspace."
        )


def _git_dirs(ctx: RepoContext, step: str) -> list[Path]:
    """The checkout's git directory and, for a linked worktree, its repository's."""
    where = ctx.git("rev-parse", "--absolute-git-dir", "--git-common-dir")
    if not where.ok:  # a StepError: the command was not run, whatever its caller catches
        raise StepError(f"{step} failed: {ctx.checkout} is not a git checkout")
    return sorted({ctx.checkout / line.strip() for line in where.transcript.splitlines()[-2:]})


@contextmanager
def git_control_kept(ctx: RepoContext, step: str, who: str) -> Iterator[None]:
    """Around a command ``who`` names (``claude``, ``the repository's build``) run in the
    checkout: fail ``step`` when it changed what git there would run (see the module), also
    when the command itself failed or timed out (the kept checkout must not run it later)."""
    watched = [git_dir / name for git_dir in _git_dirs(ctx, step) for name in _GIT_CONTROL]
    watched += global_config_files(os.environ)
    before = _digest(watched)
    try:
        yield
    finally:
        if _digest(watched) != before:
            raise StepError(
                f"{who} changed the checkout's git configuration or hooks (.git/config, "
                ".git/hooks, .git/info/attributes) or your global git configuration, which "
                "would make the next git call there run a command; nothing was committed or "
                f"pushed. The checkout is kept at {ctx.checkout}: read those files without "
                "running git in it, then delete the checkout and adopt again."
            )


def global_config_files(environ: Mapping[str, str]) -> list[Path]:
    """The user's git configuration files git reads for ``environ`` (``GIT_CONFIG_GLOBAL``,
    else ``~/.gitconfig`` and the XDG one), and the default global attributes file."""
    home = Path(environ.get("HOME", "~")).expanduser()
    xdg = Path(environ.get("XDG_CONFIG_HOME") or home / ".config") / "git"
    configs = (
        [Path(environ["GIT_CONFIG_GLOBAL"])]
        if environ.get("GIT_CONFIG_GLOBAL")
        else [home / ".gitconfig", xdg / "config"]
    )
    return [*configs, xdg / "attributes"]


def _digest(paths: Sequence[Path]) -> str:
    """What of ``paths`` could make git run a command: content, or for a folder (hooks)
    every entry's name, mode, size and time."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"\0{path}\0".encode())
        if not os.path.lexists(path):
            continue
        info = path.lstat()
        digest.update(f"{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_dir():
            for entry in sorted(path.iterdir()):
                item = entry.lstat()
                digest.update(
                    f"{entry.name}\0{item.st_mode}\0{item.st_size}\0{item.st_mtime_ns}\0".encode()
                )
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()
