"""Repository URLs: which ones are accepted, what they are called, and who they are.

Accepted forms: ``https://``, ``ssh://``, scp-like ``user@host:owner/repo``, ``file://`` and
local paths. Anything starting with ``-`` (option injection), remote-helper syntax
(``ext::...``), plain ``http://`` and other schemes are refused before anything runs.

A ``file://`` URL is read the way git reads it (percent-escapes decoded once, the host part
dropped) and git is handed the resulting absolute path, so what a caller confines is exactly
what git clones; a host other than ``localhost`` is refused rather than silently dropped.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote

from mcp_common import mask_credentials

_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*)://(?P<rest>.*)$", re.DOTALL)
_ALLOWED_SCHEMES = ("https", "ssh", "file")
_SCP_LIKE = re.compile(r"^(?:[^@/:\s]+@)?(?P<host>[^/:\s@]+):(?P<path>.*)$")
_PORT = re.compile(r"^(?P<host>[^/]*?):\d+(?=/|$)")
_PERCENT_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")
_FILE_HOSTS = ("", "localhost")
_DEFAULT_PORTS = {"https": "443", "ssh": "22"}


def one_line(text: str) -> str:
    """``text`` as one line a message can quote: every control character (a newline, an
    escape sequence's ESC) written as its escape, so an echoed value cannot forge a line."""
    return "".join(
        c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in text
    )


class RepositoryUrlError(ValueError):
    """A repository URL that cannot be adopted; the message is credential-masked."""


@dataclass(frozen=True, slots=True)
class RepositoryUrl:
    """One accepted repository URL and what the pipeline derives from it."""

    text: str
    kind: str
    name: str
    slug: str | None
    identity: str
    credential_free: str
    username: str | None = None
    password: str | None = None

    @property
    def masked(self) -> str:
        """The URL as it may appear in a log, report or error."""
        return mask_credentials(self.text)

    @property
    def has_credentials(self) -> bool:
        """Whether the URL carried a user name or token for https."""
        return self.username is not None


def parse_repository_url(value: str) -> RepositoryUrl:
    """Accept ``value`` as a repository URL or raise :class:`RepositoryUrlError`."""
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        raise RepositoryUrlError("repositoryUrl must not be blank")
    masked = one_line(mask_credentials(text))
    if text.startswith("-"):
        raise RepositoryUrlError(
            f"repositoryUrl must not start with '-' (it would be read as an option): {masked}"
        )
    if any(ch.isspace() or ord(ch) < 32 for ch in text):
        raise RepositoryUrlError(f"repositoryUrl must not contain whitespace: {masked}")
    if not text.isprintable():
        # a format character (U+202E reorders what a log shows) or a C1 control (U+009B
        # starts an escape sequence on some terminals): never part of a real URL
        raise RepositoryUrlError(
            f"repositoryUrl must not contain control or invisible characters: {masked}"
        )
    if "::" in text.split("/", 1)[0]:
        raise RepositoryUrlError(
            f"repositoryUrl uses git remote-helper syntax, which is not accepted: {masked}"
        )
    name = _name(text, masked)
    scheme_match = _SCHEME.match(text)
    if scheme_match:
        return _with_scheme(text, scheme_match["scheme"].lower(), scheme_match["rest"], name)
    scp = _SCP_LIKE.match(text)
    if scp and not re.match(r"^[A-Za-z]:[\\/]", text):
        path = scp["path"]
        return RepositoryUrl(
            text=text,
            kind="scp",
            name=name,
            slug=_slug(f"{scp['host']}/{path}"),
            identity=_identity(_host(scp["host"]) + _path("/" + path)),
            credential_free=text,
        )
    absolute = os.path.abspath(text)
    return RepositoryUrl(
        text=text,
        kind="local",
        name=name,
        slug=None,
        identity=_identity(os.path.realpath(absolute)),
        credential_free=absolute,
    )


def _with_scheme(text: str, scheme: str, rest: str, name: str) -> RepositoryUrl:
    masked = mask_credentials(text)
    if scheme not in _ALLOWED_SCHEMES:
        raise RepositoryUrlError(
            f"repositoryUrl scheme '{scheme}' is not accepted; use https, ssh, scp-like "
            f"user@host:owner/repo, file:// or a local path: {masked}"
        )
    if scheme == "file":
        path = file_url_path(rest, masked)
        return RepositoryUrl(
            text=text,
            kind="file",
            name=_name(path, masked),
            slug=None,
            identity=_identity(os.path.realpath(path)),
            credential_free=path,
        )
    authority, slash, path = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    if at and not host:
        raise RepositoryUrlError(f"repositoryUrl must end in a repository name but was: {masked}")
    hostless = _PORT.sub(lambda m: m["host"], host + slash + path, count=1)
    username: str | None = None
    password: str | None = None
    credential_free = text
    if at and scheme == "https":
        user, colon, secret = userinfo.partition(":")
        username = unquote(user)
        password = unquote(secret) if colon else None
        credential_free = f"{text[: text.index('://')]}://{host}{slash}{path}"
    return RepositoryUrl(
        text=text,
        kind=scheme,
        name=name,
        slug=_slug(hostless),
        identity=_identity(_host(host, _DEFAULT_PORTS.get(scheme)) + _path(slash + path)),
        credential_free=credential_free,
        username=username,
        password=password,
    )


def git_url_decode(text: str) -> str:
    """``text`` with its percent-escapes decoded the way git's ``url_decode`` does: once,
    byte-wise, and never ``%00`` (kept as it is, like any malformed escape)."""

    def byte(match: re.Match[bytes]) -> bytes:
        value = int(match[1], 16)
        return bytes([value]) if value else match[0]

    raw = text.encode("utf-8", errors="surrogateescape")
    return _PERCENT_ESCAPE.sub(byte, raw).decode("utf-8", errors="surrogateescape")


def file_url_path(rest: str, masked: str) -> str:
    """The local path git clones for ``file://<rest>``: ``rest`` decoded, then everything
    before the first ``/`` (the host) dropped. Refuses a host other than ``localhost``, and
    control characters or whitespace the decoding produced."""
    host, slash, path = git_url_decode(rest).partition("/")
    if host.lower() not in _FILE_HOSTS:
        raise RepositoryUrlError(
            f"a file:// URL names a path on this machine, so its host must be empty or "
            f"localhost, not '{host}': {masked}"
        )
    if not slash:
        raise RepositoryUrlError(f"repositoryUrl must end in a repository name but was: {masked}")
    if any(ch.isspace() or ord(ch) < 32 for ch in path):
        raise RepositoryUrlError(
            f"repositoryUrl must not contain whitespace, even percent-encoded: {masked}"
        )
    if not path.isprintable():
        raise RepositoryUrlError(
            "repositoryUrl must not contain control or invisible characters, even "
            f"percent-encoded: {masked}"
        )
    return "/" + path


def _name(text: str, masked: str) -> str:
    invalid = RepositoryUrlError(f"repositoryUrl must end in a repository name but was: {masked}")
    if "\\" in text or text.endswith("@"):
        raise invalid
    body = _SCHEME.sub(lambda m: m["rest"], text)
    trimmed = body[:-1] if body.endswith("/") else body
    segment = re.split(r"[/:]", trimmed)[-1]
    if segment.lower().endswith(".git"):
        segment = segment[:-4]
    if segment in ("", ".", "..") or segment.startswith("-"):
        raise invalid
    return segment


def _slug(location: str) -> str | None:
    parts = [p for p in re.split(r"[/:]", location) if p]
    if len(parts) < 3 or "." not in parts[-3]:
        return None
    repo = parts[-1][:-4] if parts[-1].lower().endswith(".git") else parts[-1]
    return f"{parts[-2]}/{repo}"


def _host(host: str, default_port: str | None = None) -> str:
    """A host as it names one server: without a trailing dot (``github.com.`` is
    ``github.com``) and without its scheme's default port."""
    name, colon, port = host.rpartition(":") if re.search(r":\d+$", host) else (host, "", "")
    name = name.rstrip(".")
    return name if not colon or port == default_port else f"{name}:{port}"


def _path(path: str) -> str:
    """A URL path as the server reads it: empty and ``.`` segments dropped, ``..`` applied
    (git's HTTP client and ssh servers resolve them), so ``o//r`` and ``o/x/../r`` are
    ``o/r``."""
    # normpath keeps two leading slashes (POSIX lets them mean something else)
    return posixpath.normpath("/" + path.lstrip("/")) if path else ""


def _identity(location: str) -> str:
    value = location.strip().replace(":", "/").rstrip("/")
    if value.lower().endswith(".git"):
        value = value[:-4]
    return value.rstrip("/").lower()


def same_repository(origin: str, url: RepositoryUrl) -> bool:
    """Whether ``origin`` (a remote URL read from a checkout) names the same repository."""
    try:
        other = parse_repository_url(origin)
    except RepositoryUrlError:
        return False
    return other.identity == url.identity
