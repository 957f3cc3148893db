"""The one masking rule: credentials never leave the server, absolute paths leave as ``.../leaf``.

``redact`` is for text a client reads; ``mask_credentials`` is for logs (paths kept);
``FailureMessage`` builds the ``<tool> failed: <message>`` text of the failure path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# user-info runs greedily to the last '@' before the host, so 'user:p@ss@host' is masked whole.
# A scheme is at most 32 characters: unbounded, every word start of a long dotted run
# ('a.a.a.…') would rescan the rest of the run looking for '://'.
_URL_USERINFO = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]{0,31}://)(?P<userinfo>[^/\s@]*(?:@[^/\s@]*)*)@"
)
_SECRET_WORD = r"(?:password|passwd|pwd|token|secret|api_?key)"  # noqa: S105 - a pattern
# key=value (query strings, environment dumps: access_token=, PGPASSWORD=, GITHUB_TOKEN=) and
# quoted JSON members ("dbPassword": "..."); the key must end in the secret word, so
# tokenizer=cl100k keeps its value. The key's prefix is left out of the pattern on purpose:
# matching it lazily made long dotted runs quadratic.
_SECRET_PARAM = re.compile(rf"(?i)(?P<key>{_SECRET_WORD}=)(?P<value>[^&\s;,'\"]+)")
_SECRET_MEMBER = re.compile(rf'(?i)(?P<key>"[\w.\-]*?{_SECRET_WORD}"\s*:\s*")(?P<value>[^"]+)')
_BEARER = re.compile(r"(?i)(?P<key>\b(?:bearer|basic)\s+)(?P<value>[A-Za-z0-9._~+/=\-]{8,})")
_KNOWN_TOKEN = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{20,})"
)
# a '/' not preceded by a word char, ':', '/', '.', '-', '~' or '@' (a URL's host-less path after
# masked user-info) starts an absolute path; it needs at least one directory segment, and its
# last segment stops at , ; ) ] as well.
_PATH_BODY = r"/(?:[^/\s'\"`]+/)+(?P<leaf>[^/\s'\"`,;)\]]*)"
_POSIX_PATH = re.compile(r"(?<![\w:/.\-~@])" + _PATH_BODY)
_WINDOWS_PATH = re.compile(r"(?<![\w])[A-Za-z]:\\(?:[^\\\s'\"`]+\\)+(?P<leaf>[^\\\s'\"`,;)\]]*)")
# a file URL is a server path in disguise: its path is shortened like any other
_FILE_URL = re.compile(r"\bfile://" + _PATH_BODY)
# a key naming a secret ends in the secret word: authToken, db_password, apiKey, credentials
# (tokenizer and tokenBudget name no secret)
_MAX_FAILURE_CHARS = 4000
_SECRET_KEYS = re.compile(r"(?i)(?:password|passwd|secret|token|credentials?|api_?key)$")


def mask_credentials(text: str) -> str:
    """Mask URL user-info, secret query parameters, bearer tokens and well-known token shapes."""
    text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}***@", text)
    text = _SECRET_PARAM.sub(lambda m: f"{m['key']}***", text)
    text = _SECRET_MEMBER.sub(lambda m: f"{m['key']}***", text)
    text = _BEARER.sub(lambda m: f"{m['key']}***", text)
    return _KNOWN_TOKEN.sub("***", text)


def _leaf(match: re.Match[str], separator: str) -> str:
    leaf = match["leaf"]
    if not leaf:
        parts = [p for p in match[0].split(separator) if p]
        leaf = parts[-1] if parts else ""
    return f"...{separator}{leaf}"


def shorten_paths(text: str) -> str:
    """Replace absolute POSIX and Windows paths (two or more components) by ``.../<leaf>``."""
    text = _FILE_URL.sub(lambda m: "file://" + _leaf(m, "/"), text)
    text = _POSIX_PATH.sub(lambda m: _leaf(m, "/"), text)
    return _WINDOWS_PATH.sub(lambda m: _leaf(m, "\\"), text)


def redact(text: str) -> str:
    """What a client may read: credentials masked and absolute paths shortened."""
    return shorten_paths(mask_credentials(text))


def mask_arguments(arguments: object) -> Any:
    """A copy of call arguments fit for a log line: credentials masked, paths kept."""
    if isinstance(arguments, str):
        return mask_credentials(arguments)
    if isinstance(arguments, Mapping):
        return {
            key: "***" if isinstance(key, str) and _SECRET_KEYS.search(key) else mask_arguments(v)
            for key, v in arguments.items()
        }
    if isinstance(arguments, list | tuple):
        return [mask_arguments(v) for v in arguments]
    return arguments


class FailureMessage:
    """Builds the text a client reads when a tool fails."""

    @staticmethod
    def describe(error: BaseException) -> str:
        """The exception's message, or its type name when it has none."""
        text = str(error).strip()
        return text or type(error).__name__

    @staticmethod
    def for_client(tool_name: str, error: BaseException | str) -> str:
        """``<tool> failed: <message>`` with credentials masked and paths shortened, the
        message cut at 4,000 characters (a failure explains itself in far fewer)."""
        message = error if isinstance(error, str) else FailureMessage.describe(error)
        # masked whole before the cut, so the cut cannot split a credential out of its URL
        text = redact(message)
        if len(text) > _MAX_FAILURE_CHARS:
            cut = len(text) - _MAX_FAILURE_CHARS
            text = f"{text[:_MAX_FAILURE_CHARS]}… ({cut} more characters cut)"
        return f"{tool_name} failed: {text}"
