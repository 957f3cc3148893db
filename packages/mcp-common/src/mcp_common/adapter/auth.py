"""The bearer token of an HTTP server: given (``--auth-token``), generated (the default) or
none at all (``--no-auth``, which says so in the log).

A generated token is random (256 bits), new at each start, printed once on stderr (never to
the log) and written to a file only the user can read, as Jupyter does, so a client
configuration can read it: ``$XDG_RUNTIME_DIR/mcp-tools/<server>-<port>.token``, or
``$XDG_STATE_HOME/mcp-tools/`` (default ``~/.local/state/mcp-tools/``) where there is no
runtime directory. The directory is created 0700 and must belong to the user; the file
is created 0600 under a fresh name beside it, never following a symlink, and renamed into
place, so no other user can read it, swap it or point it elsewhere. It is removed when the
server ends.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import logging
import os
import secrets
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_log = logging.getLogger("mcp_common.adapter")

TOKEN_BYTES = 32
"""Random bytes in a generated token (URL-safe base64: 43 characters)."""


class TokenFileError(OSError):
    """The token file cannot be written safely; the message says why."""


def token_directory(environ: Mapping[str, str] | None = None) -> Path:
    """Where generated tokens are written: the per-user runtime directory when there is one
    (and it is this user's), else the per-user state directory."""
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime) and _own_directory(runtime):
        return Path(runtime) / "mcp-tools"
    state = env.get("XDG_STATE_HOME", "")
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "mcp-tools"


def _own_directory(path: str) -> bool:
    """Whether ``path`` is a directory of this user (``sudo -E`` keeps another user's
    ``XDG_RUNTIME_DIR``: a token does not belong in there)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()


def _private_directory(directory: Path) -> int:
    """A descriptor of ``directory`` (created 0700 if missing), which must be a real
    directory of this user that no one else can enter."""
    with contextlib.suppress(FileExistsError):
        directory.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        directory.mkdir(mode=0o700)
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise TokenFileError(f"{directory} is a symlink or not a directory") from None
        raise
    info = os.fstat(fd)
    if info.st_uid != os.geteuid():
        os.close(fd)
        raise TokenFileError(f"{directory} belongs to another user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.fchmod(fd, 0o700)  # ours: close it to everyone else before writing a secret in it
    return fd


@dataclass
class TokenFile:
    """A token written to ``path``; :meth:`remove` deletes it if it still holds the token."""

    path: Path
    token: str
    _directory_fd: int
    _owner_pid: int

    def remove(self) -> None:
        """Delete the file if this process wrote it and it still holds this token (a server
        started since on the same port may have replaced it)."""
        if os.getpid() != self._owner_pid:
            return  # a forked worker inherited the exit hook: the parent cleans up
        name = self.path.name
        try:
            fd = os.open(
                name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self._directory_fd
            )
            with os.fdopen(fd, "rb") as handle:
                held = handle.read(4096).decode(errors="replace").strip()
            if secrets.compare_digest(held, self.token):
                os.unlink(name, dir_fd=self._directory_fd)
        except OSError:
            pass


def write_token_file(directory: Path, name: str, token: str) -> TokenFile:
    """Write ``token`` to ``directory/name`` readable by this user only (see the module)."""
    directory_fd = _private_directory(directory)
    temporary = f".{name}.{secrets.token_hex(8)}"
    try:
        fd = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
            dir_fd=directory_fd,
        )
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, f"{token}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=directory_fd)
        os.close(directory_fd)
        raise
    return TokenFile(directory / name, token, directory_fd, os.getpid())


def generate_token() -> str:
    """A new random bearer token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def announce_token(server: str, url: str, port: int, token: str) -> TokenFile | None:
    """Write the generated ``token`` to its file and print it once on stderr with ``url``;
    the file (None when it could not be written, which is logged) is removed at exit."""
    written: TokenFile | None = None
    problem = ""
    try:
        written = write_token_file(token_directory(), f"{server}-{port}.token", token)
    except OSError as error:
        problem = str(error)
    lines = [
        f"{server}: HTTP clients must send the header 'Authorization: Bearer <token>' to {url}",
        f"  token: {token}",
    ]
    if written is not None:
        lines.append(
            f"  (also in {written.path}, readable by you only; removed when the server ends)"
        )
        atexit.register(written.remove)
    lines.append("  (a new token at every start: --auth-token sets one, --no-auth serves without)")
    if sys.stderr is not None:  # None when the server was started with stderr closed
        sys.stderr.write("\n".join(lines) + "\n")
        sys.stderr.flush()
    if written is None:
        _log.warning(
            "could not write the token file: %s; the token was printed on stderr only", problem
        )
    return written
