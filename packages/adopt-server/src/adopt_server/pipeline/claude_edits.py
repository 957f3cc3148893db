"""Running ``claude`` with edits allowed, and refusing what it must not do.

``claude -p ... --permission-mode acceptEdits`` reads the repository, which an attacker may
have written to steer it: it must change nothing but the guidance files. After each run the
adoption refuses a change to any other file of the checkout (a stray file would ride along
into the pull request or the next steps), a guidance file left as a symlink, and any change to
the checkout's git configuration or hooks, which would make the adoption's next git call run
a command (``core.fsmonitor``, a filter driver, a hook): that is checked first, before git
runs there again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from adopt_server.pipeline.checkout import changed_paths
from adopt_server.pipeline.context import RepoContext
from adopt_server.pipeline.errors import StepError
from adopt_server.pipeline.runner import CommandError, render

GUIDANCE_FILES = ("AGENTS.md", "CLAUDE.md")
# what git reads from a git directory and could be made to run a command by
_GIT_CONTROL = ("config", "config.worktree", "hooks", "info/attributes")


@contextmanager
def claude_edits_checked(
    ctx: RepoContext, step: str, allowed: Collection[str] = GUIDANCE_FILES
) -> Iterator[None]:
    """Around a ``claude`` run in the checkout: fail ``step`` when it changed the git
    configuration or hooks, a path other than ``allowed``, or left a guidance file a
    symlink."""
    where = ctx.git_or_fail(step, "rev-parse", "--absolute-git-dir", "--git-common-dir")
    git_dirs = sorted({ctx.checkout / line.strip() for line in where.transcript.splitlines()[-2:]})
    control = _digest(git_dirs)
    before = _changed(ctx, step)
    # a link the repository itself holds is refused by the step that reads it, naming it so
    links = {path for path in GUIDANCE_FILES if os.path.islink(ctx.checkout / path)}
    kept = f"nothing was committed or pushed. The checkout is kept at {ctx.checkout}"
    try:
        yield
    finally:
        # also when claude failed or timed out: the kept checkout must not run it later
        if _digest(git_dirs) != control:
            raise StepError(
                "claude changed the checkout's git configuration or hooks (.git/config, "
                ".git/hooks, .git/info/attributes), which would make the next git call there "
                f"run a command; {kept}: read those files without running git in it, then "
                "delete the checkout and adopt again."
            )
    stray = sorted(_changed(ctx, step) - before - set(allowed))
    if stray:
        raise StepError(
            f"claude changed files it was not asked to write: {', '.join(stray)}. The adoption "
            f"commits only its own files; {kept}: review or remove those changes, then adopt "
            "again."
        )
    for path in GUIDANCE_FILES:
        if path not in links and os.path.islink(ctx.checkout / path):
            raise StepError(
                f"claude left {path} as a symlink, and the adoption reads and commits only "
                f"regular files; {kept}: replace the link with the file, then adopt again."
            )


def run_claude(ctx: RepoContext, step: str, argv: Sequence[str], shown: str) -> None:
    """Run ``argv`` (a ``claude -p`` call with edits allowed) in the checkout under
    :func:`claude_edits_checked`; a non-zero exit fails ``step``, with ``shown`` standing for
    the command (a prompt is long)."""
    with claude_edits_checked(ctx, step):
        result = ctx.runner.run(ctx.checkout, list(argv))
    if not result.ok:
        raise CommandError(result.describe_failure(step).replace(render(argv), shown))


def _digest(git_dirs: Sequence[Path]) -> str:
    """What of the git directories could make git run a command: content, or for a folder
    (hooks) every entry's name, mode, size and time."""
    digest = hashlib.sha256()
    for git_dir in git_dirs:
        for name in _GIT_CONTROL:
            path = git_dir / name
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
            else:
                digest.update(path.read_bytes())
    return digest.hexdigest()


def _changed(ctx: RepoContext, step: str) -> set[str]:
    status = ctx.git_or_fail(step, "status", "--porcelain", "--untracked-files=all")
    return set(changed_paths(status.transcript))
