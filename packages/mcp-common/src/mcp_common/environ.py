"""Which environment a settings model reads: ``os.environ``, or a mapping a caller supplies.

In-process tests build a server for a given environment without touching the process's own;
:func:`reading` sets that mapping for the settings built inside it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from pydantic_settings import BaseSettings, EnvSettingsSource
from pydantic_settings.sources.utils import parse_env_vars

_ENVIRON: ContextVar[Mapping[str, str] | None] = ContextVar("mcp_common_environ", default=None)


class _EnvironSource(EnvSettingsSource):
    """pydantic-settings' environment source over the mapping :func:`reading` set."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        environ = _ENVIRON.get()
        return parse_env_vars(
            os.environ if environ is None else environ,
            self.case_sensitive,
            self.env_ignore_empty,
            self.env_parse_none_str,
        )


def environ_source(settings_cls: type[BaseSettings]) -> EnvSettingsSource:
    """The environment source of ``settings_cls`` for the current :func:`reading` mapping."""
    return _EnvironSource(settings_cls)


@contextmanager
def reading(environ: Mapping[str, str] | None) -> Iterator[None]:
    """Settings built inside read ``environ`` (``None``: the process environment)."""
    token = _ENVIRON.set(environ)
    try:
        yield
    finally:
        _ENVIRON.reset(token)
