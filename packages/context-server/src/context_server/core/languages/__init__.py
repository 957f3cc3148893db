"""The language plugins: one module per family, one line each in :data:`FAMILIES`.

Everything else reaches a language through this registry: the dialect a file is written in
(by extension), the family plugin that names, parses and links it (see
:class:`~context_server.core.languages.base.Language`). Adding a language is one module
implementing that protocol and one line here.
"""

from __future__ import annotations

from collections.abc import Iterable

from context_server.core.languages.base import Language, Linker, SourceLanguage, TooComplexError
from context_server.core.languages.csharp import CSHARP_LANGUAGE
from context_server.core.languages.go import GO_LANGUAGE
from context_server.core.languages.jvm import JVM
from context_server.core.languages.python import PYTHON_LANGUAGE
from context_server.core.languages.rust import RUST_LANGUAGE
from context_server.core.languages.script import SCRIPT

FAMILIES: tuple[Language, ...] = (
    JVM,
    PYTHON_LANGUAGE,
    SCRIPT,
    GO_LANGUAGE,
    CSHARP_LANGUAGE,
    RUST_LANGUAGE,
)
"""Every language plugin, in the order their dialects are offered."""

LANGUAGES: tuple[SourceLanguage, ...] = tuple(
    dialect for family in FAMILIES for dialect in family.dialects
)
"""Every supported dialect."""
LANGUAGE_NAMES: tuple[str, ...] = ("auto", *(lang.name for lang in LANGUAGES))
"""What the ``language`` argument accepts."""

_BY_NAME = {dialect.name: dialect for dialect in LANGUAGES}
_FAMILY_OF = {dialect.name: family for family in FAMILIES for dialect in family.dialects}
_BY_EXTENSION = {extension: language for language in LANGUAGES for extension in language.extensions}


def dialect(name: str) -> SourceLanguage:
    """The dialect called ``name`` (as facts record it); ``KeyError`` for an unknown one."""
    return _BY_NAME[name]


def family_of(name: str) -> Language:
    """The plugin of the dialect called ``name``; ``KeyError`` for an unknown one."""
    return _FAMILY_OF[name]


def families(languages: Iterable[SourceLanguage]) -> tuple[Language, ...]:
    """The plugins ``languages`` belong to, in registry order."""
    wanted = {language.name for language in languages}
    return tuple(family for family in FAMILIES if any(d.name in wanted for d in family.dialects))


def select_languages(name: str) -> tuple[SourceLanguage, ...]:
    """The languages ``name`` selects: ``auto`` means all of them.

    Raises ``ValueError`` naming the accepted values for anything else.
    """
    wanted = name.strip().lower()
    if wanted == "auto":
        return LANGUAGES
    for language in LANGUAGES:
        if language.name == wanted:
            return (language,)
    raise ValueError(f"unknown language {name!r}; use one of {', '.join(LANGUAGE_NAMES)}")


def language_of(file_name: str, languages: tuple[SourceLanguage, ...]) -> SourceLanguage | None:
    """The language among ``languages`` whose extension the file carries, if any."""
    dot = file_name.rfind(".")
    language = _BY_EXTENSION.get(file_name[dot:]) if dot > 0 else None
    return language if language is not None and language in languages else None


# Programming languages without a grammar here, by extension: their files are named as
# such (never parsed, never an error) where an answer maps a whole project.
_OTHER_LANGUAGES = {
    ".c": "C",
    ".h": "C/C++",
    ".cc": "C++",
    ".cpp": "C++",
    ".cxx": "C++",
    ".hh": "C++",
    ".hpp": "C++",
    ".m": "Objective-C",
    ".mm": "Objective-C",
    ".swift": "Swift",
    ".rb": "Ruby",
    ".php": "PHP",
    ".pl": "Perl",
    ".pm": "Perl",
    ".lua": "Lua",
    ".dart": "Dart",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".erl": "Erlang",
    ".hs": "Haskell",
    ".ml": "OCaml",
    ".fs": "F#",
    ".fsx": "F#",
    ".vb": "Visual Basic",
    ".clj": "Clojure",
    ".groovy": "Groovy",
    ".gradle": "Groovy",
    ".r": "R",
    ".jl": "Julia",
    ".zig": "Zig",
    ".sol": "Solidity",
    ".vue": "Vue",
    ".svelte": "Svelte",
}


def unsupported_language(file_name: str) -> str | None:
    """The programming language of ``file_name`` when no supported grammar reads it."""
    dot = file_name.rfind(".")
    return _OTHER_LANGUAGES.get(file_name[dot:].lower()) if dot > 0 else None


__all__ = [
    "FAMILIES",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "Language",
    "Linker",
    "SourceLanguage",
    "TooComplexError",
    "dialect",
    "families",
    "family_of",
    "language_of",
    "select_languages",
    "unsupported_language",
]
