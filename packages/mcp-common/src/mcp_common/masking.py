"""The one masking rule: credentials never leave the server, absolute paths leave as ``.../leaf``.

``redact`` is for text a client reads; ``mask_credentials`` is for logs (paths kept);
``FailureMessage`` builds the ``<tool> failed: <message>`` text of the failure path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

# Every pattern below is linear in the text: quantifiers that could overlap are bounded or
# separated by a required character, and no pattern starts with an unbounded prefix that
# each later position would rescan (tests/test_adversarial_inputs.py holds the tripwires).
# detect-secrets was weighed for the token shapes and not taken: its keyword patterns rescan
# long runs (an unbounded key prefix before each word) and it reports values per line, not
# where they are, so masking would still need patterns of its own.
_SCHEME = r"\b[A-Za-z][A-Za-z0-9+.\-]{0,31}://"  # bounded: a long dotted run is not rescanned
# user-info runs greedily to the last '@' before the host, so 'user:p@ss@host' is masked whole
_URL_USERINFO = re.compile(rf"(?P<scheme>{_SCHEME})(?P<userinfo>[^/\s@]*(?:@[^/\s@]*)*)@")
# 'user:password@host' whose password holds a space or '/' (not valid in a URL, but written):
# the password runs to the first '@' that a host follows, within 128 characters of the line
# (a port, 'host:8080/path', is no password)
_URL_LOOSE_PASSWORD = re.compile(
    rf"(?P<scheme>{_SCHEME})(?P<userinfo>[^/\s@:]{{1,64}}:(?!\d{{1,5}}(?:[/?#\s]|$))[^@\n]{{1,128}})"
    r"@(?=[\w\[])"
)
# Keys whose value is a secret. A key matches when it ends in one of these words (PGPASSWORD,
# db_password, GITHUB_TOKEN, aws_secret_access_key, x-api-key); the part of the key before
# the word is left out of the pattern on purpose (matching it made long runs quadratic).
# STRONG words name a secret after '=' or ':' (config files, YAML, JSON, headers); WEAK words
# are common English too ('tests pass: 5'), so only 'pass=' and 'auth=' count.
_STRONG_WORDS = (
    r"password|passwd|passphrase|pwd|secret|token|credentials?"
    r"|(?:api|access|secret|private|client|auth|encryption|signing|master)[_\-]?key"
)
_WEAK_WORDS = r"pass|auth"
_QUOTED = r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'"
# after '=' a bare value stops at the next separator; after ':' it runs to the line's end
# (YAML 'password: correct horse') unless a ',', ';' or '}' ends it
_SECRET_ASSIGNMENT = re.compile(
    rf"(?i)(?P<key>(?:{_STRONG_WORDS})[\"']?[ \t]{{0,8}}=[ \t]{{0,8}})"
    rf"(?P<value>{_QUOTED}|[^&\s;,'\"]+)"
    rf"|(?P<ckey>(?:{_STRONG_WORDS})[\"']?[ \t]{{0,8}}:[ \t]{{0,8}})"
    rf"(?P<cvalue>{_QUOTED}|[^\s,;}}'\"][^\n,;}}'\"]*)"
    rf"|(?P<wkey>(?<![A-Za-z])(?:{_WEAK_WORDS})=)(?P<wvalue>[^&\s;,'\"]+)"
)
_BEARER = re.compile(r"(?i)(?P<key>\b(?:bearer|basic)\s+)(?P<value>[A-Za-z0-9._~+/=\-]{8,})")
# an Authorization header (or member) with any scheme: Bearer, Basic, Token, Digest, none
_AUTHORIZATION = re.compile(
    r"(?i)(?P<key>\bauthorization[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?(?:[A-Za-z\-]{1,16}[ \t]+)?)"
    r"(?P<value>[^\s\"',;]+)"
)
# token shapes recognisable without a key; a token may be glued after '_' or other text
# (prefix_ghp_…), so only a letter or digit right before it rules it out
_KNOWN_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_\-]{20,}"
    r"|(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}(?![A-Za-z0-9])"
    r"|AIza[0-9A-Za-z_\-]{35}"
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|sk-[A-Za-z0-9_\-]{20,}"
    r"|npm_[A-Za-z0-9]{36}"
    r"|pypi-[A-Za-z0-9_\-]{16,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"
    r")"
)
# a PEM private key: its body (base64 and 'Proc-Type: …' headers; '*' so that a masked key
# is matched whole again) is consumed possessively, so a run of BEGIN lines is scanned once
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z ]{0,32}PRIVATE KEY-----(?:[A-Za-z0-9+/=\s:,*]|-(?!----END))*+"
    r"(?:-----END [A-Z ]{0,32}PRIVATE KEY-----)?"
)
# A directory may hold single spaces ('/srv/my data/x.csv'): up to four words free of dots
# and punctuation, so prose after a file name ('a.csv; [/srv/b]', 'b.csv or c/d', 'x.csv via
# https://') is not read into the path.
_WORD = r"[^/\\\s'\"`,;:.()\[\]]+"
_SEGMENT = rf"(?:[^/\s'\"`]+|{_WORD}(?: {_WORD}){{1,3}})/"
_LEAF = r"(?P<leaf>[^/\s'\"`,;)\]]*)"
_PATH_BODY = rf"/(?:{_SEGMENT})+{_LEAF}"
# a '/' not preceded by a word char, ':', '/', '.', '-', '~' or '@' (a URL's host-less path after
# masked user-info) starts an absolute path; it needs at least one directory segment
_POSIX_PATH = re.compile(r"(?<![\w:/.\-~@])" + _PATH_BODY)
# '~/a/b' and '~user/a/b': a home directory is as telling as an absolute path
_HOME_PATH = re.compile(r"(?<![\w/.\-~])~[\w.\-]{0,32}" + _PATH_BODY)
_WIN_SEGMENT = rf"(?:[^\\/\s'\"`]+|{_WORD}(?: {_WORD}){{1,3}})[\\/]"
_WIN_LEAF = r"(?P<leaf>[^\\/\s'\"`,;)\]]*)"
# C:\a\b.txt and C:/a/b.txt; UNC \\server\share\b.txt
_WINDOWS_PATH = re.compile(rf"(?<![\w])[A-Za-z]:[\\/](?:{_WIN_SEGMENT})+{_WIN_LEAF}")
_UNC_PATH = re.compile(rf"(?<![\w\\])\\\\[^\\/\s'\"`]+\\(?:{_WIN_SEGMENT})*{_WIN_LEAF}")
# a URL with an empty host is a server path in disguise (file:///srv/x, sqlite:////srv/x.db):
# its path is shortened like any other (once: 'sqlite:///.../x.db' is already short)
_EMPTY_HOST_URL = re.compile(rf"(?P<prefix>{_SCHEME}/?)(?!/\.\.\./){_PATH_BODY}")
_MAX_FAILURE_CHARS = 4000
# a key naming a secret ends in the secret word: authToken, db_password, apiKey, credentials
# (tokenizer and tokenBudget name no secret); a weak word only as a whole word of the key:
# db_pass, dbPass, auth, but not bypass
_SECRET_KEYS = re.compile(
    rf"(?:(?i:{_STRONG_WORDS}|authorization)|(?<![A-Za-z])(?i:{_WEAK_WORDS})"
    r"|(?<=[a-z])(?:Pass|Auth))$"
)


def _masked_assignment(match: re.Match[str]) -> str:
    """The key kept, the value masked (its quotes kept), whichever alternative matched."""
    key, value = next(
        (key, value)
        for key, value in (("key", "value"), ("ckey", "cvalue"), ("wkey", "wvalue"))
        if match[key] is not None
    )
    quote = match[value][0] if match[value][0] in "\"'" else ""
    return f"{match[key]}{quote}***{quote}"


# Every match of the two key patterns starts with one of these words (in any case). Python's re
# tries each alternative of a case-insensitive pattern at every position of the text, which
# made masking a 100 KB answer take a second; trying the pattern only where one of these
# words starts gives the same matches at a fraction of the cost.
_KEY_STARTS = (
    "pass", "pwd", "secret", "token", "credential", "api", "access", "private", "client",
    "auth", "encryption", "signing", "master",
)  # fmt: skip
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _sub_at_key_starts(
    pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str], text: str
) -> str:
    """``pattern.sub(replace, text)`` for a pattern whose matches start at a key word."""
    lowered = text.translate(_ASCII_LOWER)  # same length: only ASCII letters change
    starts: set[int] = set()
    for word in _KEY_STARTS:
        found = lowered.find(word)
        while found != -1:
            starts.add(found)
            found = lowered.find(word, found + 1)
    if not starts:
        return text
    parts, done = [], 0
    for start in sorted(starts):
        if start < done:
            continue
        match = pattern.match(text, start)
        if match is not None and match.end() > match.start():
            parts += [text[done : match.start()], replace(match)]
            done = match.end()
    parts.append(text[done:])
    return "".join(parts)


def mask_credentials(text: str) -> str:
    """Mask URL user-info, secret assignments (``password: x``, ``"token": "x"``,
    ``api_key=x``), authorization headers, private keys and well-known token shapes."""
    text = _PRIVATE_KEY.sub("-----BEGIN PRIVATE KEY-----***-----END PRIVATE KEY-----", text)
    if "://" in text:
        text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}***@", text)
        text = _URL_LOOSE_PASSWORD.sub(lambda m: f"{m['scheme']}***@", text)
    text = _sub_at_key_starts(_SECRET_ASSIGNMENT, _masked_assignment, text)
    text = _sub_at_key_starts(_AUTHORIZATION, lambda m: f"{m['key']}***", text)
    text = _BEARER.sub(lambda m: f"{m['key']}***", text)
    return _KNOWN_TOKEN.sub("***", text)


def mask_structured(value: Any) -> Any:
    """``value`` (JSON-like: mappings, lists, strings, numbers) with every string in it masked
    by :func:`mask_credentials`.

    The strings are masked once together, joined by new lines, first: when that changes
    nothing, no string alone holds anything to mask (a match in a string alone is a match in
    the joined text too, and a match running into it from the string before changes the
    joined text), so the value is returned as it is, for one pass over its text instead of
    one per string (a tree of thousands of paths).
    """
    strings: list[str] = []
    _collect_strings(value, strings)
    joined = "\n".join(strings)
    if mask_credentials(joined) == joined:
        return value
    return _mask_each(value)


def _collect_strings(value: Any, into: list[str]) -> None:
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect_strings(item, into)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect_strings(item, into)


def _mask_each(value: Any) -> Any:
    if isinstance(value, str):
        return mask_credentials(value)
    if isinstance(value, Mapping):
        return {key: _mask_each(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_mask_each(item) for item in value]
    return value


def _leaf(match: re.Match[str], separator: str) -> str:
    leaf = match["leaf"]
    if not leaf:
        parts = [p for p in match[0].split(separator) if p]
        leaf = parts[-1] if parts else ""
    return f"...{separator}{leaf}"


def shorten_paths(text: str) -> str:
    """Replace absolute POSIX, home (``~/``) and Windows (drive, UNC) paths of two or more
    components, also inside host-less URLs (``file:///``, ``sqlite:////``), by ``.../<leaf>``."""
    text = _EMPTY_HOST_URL.sub(lambda m: m["prefix"] + _leaf(m, "/"), text)
    text = _POSIX_PATH.sub(lambda m: _leaf(m, "/"), text)
    text = _HOME_PATH.sub(lambda m: _leaf(m, "/"), text)
    text = _WINDOWS_PATH.sub(lambda m: _leaf(m, "\\" if "\\" in m[0] else "/"), text)
    return _UNC_PATH.sub(lambda m: _leaf(m, "\\"), text)


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
