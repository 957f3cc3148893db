"""The one allow-list of environment variables a program we do not trust runs with.

A child running work fed by an attacker (an isolated check, a repository's own build
wrapper) sees only what it needs to run: the variables in :data:`BASE_VARIABLES`, the locale
(``LC_*``) and the names its caller adds. Anything else (a token, an ``*_API_KEY``, cloud
credentials) never reaches it, whatever it is called: an allow-list, never a deny-list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

BASE_VARIABLES = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR"})
"""What every child keeps: where programs and the user's files are, the locale and the time
zone, the temporary directory."""

PROXY_VARIABLES = frozenset({"http_proxy", "https_proxy", "no_proxy", "all_proxy"})
"""Proxy settings (either case), kept with ``proxies=True`` unless they carry credentials."""

_USERINFO = re.compile(r"//[^/@]*@")


def child_environment(
    environ: Mapping[str, str], keep: Iterable[str] = (), *, proxies: bool = False
) -> dict[str, str]:
    """The part of ``environ`` a child we do not trust runs with: :data:`BASE_VARIABLES`, the
    locale (``LC_*``), the names in ``keep`` and, with ``proxies``, the proxy settings whose
    value holds no ``user:password@``. Everything else is left out."""
    kept = BASE_VARIABLES.union(keep)
    return {
        name: value
        for name, value in environ.items()
        if name in kept
        or name.startswith("LC_")
        or (proxies and name.lower() in PROXY_VARIABLES and not _USERINFO.search(value))
    }
