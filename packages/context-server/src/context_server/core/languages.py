"""The supported source languages and their tree-sitter grammars (from PyPI wheels)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import tree_sitter
import tree_sitter_c_sharp
import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_kotlin
import tree_sitter_python
import tree_sitter_rust
import tree_sitter_scala
import tree_sitter_typescript


@dataclass(frozen=True)
class SourceLanguage:
    """One language: its name, display name, file extensions and grammar.

    ``path_modules``: the extractor is given the file's root-relative path (ES modules are
    named by it, Go packages are directories). ``config_files``: project files (by name)
    whose content module resolution needs (``tsconfig.json``, ``go.mod``).
    """

    name: str
    display: str
    extensions: tuple[str, ...]
    grammar: Callable[[], object] = field(repr=False, compare=False)
    path_modules: bool = False
    config_files: tuple[str, ...] = ()

    def parser(self) -> tree_sitter.Parser:
        """A parser for this language; parsers are not thread-safe, so one per thread."""
        return _parser(self)

    def grammar_language(self) -> tree_sitter.Language:
        """The tree-sitter language object of this grammar (shared, immutable)."""
        return _grammar(self)

    def query(self, source: str) -> tree_sitter.Query:
        """The compiled tree-sitter query ``source`` for this grammar, compiled once."""
        with _QUERY_LOCK:
            compiled = _QUERIES.get((self.name, source))
            if compiled is None:
                compiled = tree_sitter.Query(self.grammar_language(), source)
                _QUERIES[(self.name, source)] = compiled
            return compiled


_QUERY_LOCK = threading.Lock()
_QUERIES: dict[tuple[str, str], tree_sitter.Query] = {}
_SCRIPT_CONFIGS = ("tsconfig.json", "jsconfig.json")
LANGUAGES: tuple[SourceLanguage, ...] = (
    SourceLanguage("java", "Java", (".java",), tree_sitter_java.language),
    SourceLanguage("kotlin", "Kotlin", (".kt", ".kts"), tree_sitter_kotlin.language),
    SourceLanguage("scala", "Scala", (".scala", ".sc"), tree_sitter_scala.language),
    SourceLanguage("python", "Python", (".py", ".pyi"), tree_sitter_python.language),
    SourceLanguage(
        "typescript",
        "TypeScript",
        (".ts", ".mts", ".cts"),
        tree_sitter_typescript.language_typescript,
        path_modules=True,
        config_files=_SCRIPT_CONFIGS,
    ),
    SourceLanguage(
        "tsx",
        "TSX",
        (".tsx",),
        tree_sitter_typescript.language_tsx,
        path_modules=True,
        config_files=_SCRIPT_CONFIGS,
    ),
    SourceLanguage(
        "javascript",
        "JavaScript",
        (".js", ".jsx", ".mjs", ".cjs"),
        tree_sitter_javascript.language,
        path_modules=True,
        config_files=_SCRIPT_CONFIGS,
    ),
    SourceLanguage(
        "go", "Go", (".go",), tree_sitter_go.language, path_modules=True, config_files=("go.mod",)
    ),
    SourceLanguage("csharp", "C#", (".cs",), tree_sitter_c_sharp.language),
    SourceLanguage(
        "rust",
        "Rust",
        (".rs",),
        tree_sitter_rust.language,
        path_modules=True,
        config_files=("Cargo.toml",),
    ),
)
LANGUAGE_NAMES: tuple[str, ...] = ("auto", *(lang.name for lang in LANGUAGES))

_local = threading.local()
_grammars: dict[str, tree_sitter.Language] = {}
_grammar_lock = threading.Lock()


def _parser(language: SourceLanguage) -> tree_sitter.Parser:
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    parser = parsers.get(language.name)
    if parser is None:
        parser = tree_sitter.Parser(_grammar(language))
        parsers[language.name] = parser
    return parser


def _grammar(language: SourceLanguage) -> tree_sitter.Language:
    with _grammar_lock:
        grammar = _grammars.get(language.name)
        if grammar is None:
            grammar = tree_sitter.Language(language.grammar())
            _grammars[language.name] = grammar
    return grammar


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


_BY_EXTENSION = {extension: language for language in LANGUAGES for extension in language.extensions}


def language_of(file_name: str, languages: tuple[SourceLanguage, ...]) -> SourceLanguage | None:
    """The language among ``languages`` whose extension the file carries, if any."""
    dot = file_name.rfind(".")
    language = _BY_EXTENSION.get(file_name[dot:]) if dot > 0 else None
    return language if language is not None and language in languages else None
