"""TypeScript, TSX and JavaScript: ES module facts and import resolution by file path.

A script file is a module named by its path; it sees another file only through an import
(``import``, ``import type``, ``export … from``, ``require("…")``), so resolution never
guesses by simple name. A specifier resolves like the TypeScript compiler's ``bundler``
mode: relative (``./x``, ``../y``) from the importing file, with the extension optional and
``x/index`` for a folder; ``.js`` written for a ``.ts`` source; a bare specifier through the
``paths`` and ``baseUrl`` of the nearest ``tsconfig.json`` / ``jsconfig.json`` (following a
relative ``extends``). A bare specifier that maps to no project file is a package from
outside the project: no edge.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import json5
import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from context_server.core.facts import (
    Declaration,
    EdgeSet,
    FileDependencies,
    Import,
    SourceFacts,
)
from context_server.core.languages.base import Linker, SourceLanguage

TYPESCRIPT = SourceLanguage(
    "typescript", "TypeScript", (".ts", ".mts", ".cts"), tree_sitter_typescript.language_typescript
)
TSX = SourceLanguage("tsx", "TSX", (".tsx",), tree_sitter_typescript.language_tsx)
JAVASCRIPT = SourceLanguage(
    "javascript", "JavaScript", (".js", ".jsx", ".mjs", ".cjs"), tree_sitter_javascript.language
)
# Tried in this order for a specifier without a source extension.
_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
# ``./x.js`` in TypeScript source means the ``x.ts`` the compiler turns into ``x.js``.
_EMITTED = {
    ".js": (".ts", ".tsx", ".js", ".jsx"),
    ".jsx": (".tsx", ".jsx"),
    ".mjs": (".mts", ".mjs"),
    ".cjs": (".cts", ".cjs"),
}
_TYPES = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
    }
)
_MEMBERS = frozenset(
    {"function_declaration", "generator_function_declaration", "function_signature"}
)
_VARIABLES = frozenset({"lexical_declaration", "variable_declaration"})
_NAMES = ("identifier", "type_identifier", "shorthand_property_identifier")
_MAX_EXTENDS = 8


def _query(language: SourceLanguage) -> tree_sitter.Query:
    """One query per grammar: every name node and every ``require``/``import()`` call."""
    grammar = language.grammar_language()
    patterns = " ".join(
        f"({kind}) @name" for kind in _NAMES if grammar.id_for_node_kind(kind, True)
    )
    return language.query(f"{patterns} (call_expression) @call")


def module_name(relative: str) -> str:
    """The module a file is: its path without the source extension (``src/a/user``)."""
    for extension in (".d.ts", *_EXTENSIONS):
        if relative.endswith(extension):
            return relative[: -len(extension)]
    return relative.rsplit(".", 1)[0]


def _text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _specifier(node: tree_sitter.Node | None) -> str | None:
    """The text of a string literal without quotes (no template, no concatenation)."""
    if node is None or node.type != "string":
        return None
    return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")


def extract_script(
    language: SourceLanguage, text: str, module: str, span: tuple[int, int] | None = None
) -> SourceFacts:
    """The facts of one script file at root-relative path ``module``.

    Imports carry the specifier as written in ``target`` and the local name they bind in
    ``alias`` (``wildcard`` for ``import * as ns``; no alias for a side-effect import, a
    re-export or a ``require``). References are the names used in code outside import statements
    (comments and strings never count); with ``span``, only those inside it.
    """
    source = text.encode("utf-8")
    root = language.parser().parse(source).root_node
    scope = module_name(module)
    imports: list[Import] = []
    declarations: list[Declaration] = []
    skipped: list[tuple[int, int]] = []
    for child in root.named_children:
        if child.type == "import_statement":
            imports.extend(_imports(child))
            skipped.append((child.start_byte, child.end_byte))
        elif child.type == "export_statement":
            source_node = child.child_by_field_name("source")
            specifier = _specifier(source_node)
            if specifier is not None:
                # ``export { A } from``/``export * from``: a re-export is a use of its module.
                imports.append(Import(specifier, None, True))
                skipped.append((child.start_byte, child.end_byte))
            declarations.extend(_declared(child, scope))
        else:
            declarations.extend(_declared(child, scope))
    names: list[str] = []
    for capture, nodes in tree_sitter.QueryCursor(_query(language)).captures(root).items():
        for node in nodes:
            start = node.start_byte
            if any(first <= start < last for first, last in skipped):
                continue
            if capture == "call":
                imports.extend(_required(node))
            elif span is None or span[0] <= start < span[1]:
                names.append(_text(node))
    counts = Counter(names)
    return SourceFacts(
        language=language.name,
        package=posixpath.dirname(module),
        imports=tuple(imports),
        declarations=tuple(declarations),
        local_names=frozenset(d.simple_name for d in declarations),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
    )


def _imports(node: tree_sitter.Node) -> Iterator[Import]:
    specifier = _specifier(node.child_by_field_name("source"))
    if specifier is None:
        return
    clause = next((c for c in node.named_children if c.type == "import_clause"), None)
    if clause is None:
        yield Import(specifier)  # a side-effect import: ``import "./polyfill"``
        return
    for part in clause.named_children:
        if part.type == "identifier":
            yield Import(specifier, _text(part))
        elif part.type == "namespace_import":
            alias = next((c for c in part.named_children if c.type == "identifier"), None)
            yield Import(specifier, _text(alias), True)
        elif part.type == "named_imports":
            for item in part.named_children:
                if item.type == "import_specifier":
                    bound = item.child_by_field_name("alias") or item.child_by_field_name("name")
                    yield Import(specifier, _text(bound))


def _required(node: tree_sitter.Node) -> Iterator[Import]:
    """``require("./x")`` and ``import("./x")`` with a literal specifier."""
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None or _text(function) not in {"require", "import"}:
        return
    literal = arguments.named_children[0] if arguments.named_child_count == 1 else None
    specifier = _specifier(literal)
    if specifier is not None:
        yield Import(specifier, None, True)


def _declared(node: tree_sitter.Node, scope: str) -> Iterator[Declaration]:
    """Top-level declarations of one statement (an ``export`` unwrapped)."""
    outer = node
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration")
        if inner is None:
            inner = next((c for c in node.named_children if c.type in _TYPES), None)
        if inner is None:
            return
        node = inner
    lines = (outer.start_point[0] + 1, outer.end_point[0] + 1)
    where = (outer.start_byte, outer.end_byte)
    if node.type in _TYPES or node.type in _MEMBERS:
        name = _text(node.child_by_field_name("name"))
        if name:
            kind = "type" if node.type in _TYPES else "member"
            yield Declaration(name, f"{scope}.{name}", kind, False, lines, where)
    elif node.type in _VARIABLES:
        for declarator in node.named_children:
            name_node = declarator.child_by_field_name("name")
            if (
                declarator.type == "variable_declarator"
                and name_node is not None
                and name_node.type == "identifier"
            ):
                name = _text(name_node)
                yield Declaration(name, f"{scope}.{name}", "member", False, lines, where)


@dataclass(frozen=True, slots=True)
class _Mapping:
    """The module resolution settings of one config: ``baseUrl`` and ``paths``."""

    base: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    paths_base: str


class ScriptProject:
    """Resolves import specifiers of the project's script files to project files."""

    def __init__(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> None:
        self._files = frozenset(sources)
        self._declared: dict[str, list[str]] = {}
        for path, facts in sources.items():
            for declaration in facts.declarations:
                files = self._declared.setdefault(declaration.qualified_name, [])
                if path not in files:
                    files.append(path)
        self._raw = {path: _options(data) for path, data in configs.items()}
        self._mappings: dict[str, _Mapping] = {}
        for path in self._raw:
            self._mappings[posixpath.dirname(path)] = self._mapping(path)

    def _mapping(self, path: str) -> _Mapping:
        """The config's settings merged over those it ``extends`` (nearest wins)."""
        base: str | None = None
        paths: tuple[tuple[str, tuple[str, ...]], ...] | None = None
        paths_base = ""
        seen: set[str] = set()
        current: str | None = path
        while current is not None and current not in seen and len(seen) < _MAX_EXTENDS:
            seen.add(current)
            options = self._raw.get(current)
            if options is None:
                break
            folder = posixpath.dirname(current)
            compiler = options.get("compilerOptions")
            compiler = compiler if isinstance(compiler, dict) else {}
            base_url = compiler.get("baseUrl")
            if base is None and isinstance(base_url, str):
                base = _join(folder, base_url)
            found = compiler.get("paths")
            if paths is None and isinstance(found, dict):
                paths = tuple(
                    (str(key), tuple(str(v) for v in value if isinstance(v, str)))
                    for key, value in found.items()
                    if isinstance(value, list)
                )
                paths_base = folder
            parent = options.get("extends")
            current = (
                _join(folder, parent)
                if isinstance(parent, str) and parent.startswith(".")
                else None
            )
            if current is not None and not current.endswith(".json"):
                current += ".json"
        # ``paths`` count from ``baseUrl`` when there is one, else from their config.
        return _Mapping(base, paths or (), base if base is not None else paths_base)

    def resolve(self, importer: str, specifier: str) -> str | None:
        """The project file ``specifier`` (as written in ``importer``) names, if any."""
        if specifier.startswith(("./", "../")) or specifier in {".", ".."}:
            return self._file(_join(posixpath.dirname(importer), specifier))
        mapping = self._nearest(importer)
        if mapping is None:
            return None
        for pattern, targets in mapping.paths:
            matched = _match(pattern, specifier)
            if matched is None:
                continue
            for target in targets:
                found = self._file(_join(mapping.paths_base, target.replace("*", matched, 1)))
                if found is not None:
                    return found
        if mapping.base is not None:
            return self._file(_join(mapping.base, specifier))
        return None

    def _nearest(self, importer: str) -> _Mapping | None:
        folder = posixpath.dirname(importer)
        while True:
            mapping = self._mappings.get(folder)
            if mapping is not None or not folder:
                return mapping
            folder = posixpath.dirname(folder)

    def _file(self, path: str | None) -> str | None:
        if path is None:
            return None
        for candidate in _candidates(path):
            if candidate in self._files:
                return candidate
        return None

    def declared(self, name: str) -> tuple[str, ...]:
        """Files declaring ``name`` (``<module>.<Name>``)."""
        return tuple(self._declared.get(name, ()))

    def edges(self, relative: str, facts: SourceFacts, whole: bool) -> FileDependencies:
        """The files ``facts`` imports (rule ``import``) and how often the code uses what
        each import binds.

        A namespace import counts uses of its namespace; a side-effect import, a
        re-export and ``require`` count as used once. With ``whole`` false (one
        declaration of the file), only imports whose names the declaration uses count.
        """
        counts = facts.counted()
        found = EdgeSet(relative)
        for item in facts.imports:
            target = self.resolve(relative, item.target)
            if target is None:
                continue
            uses = counts.get(item.alias, 0) if item.alias is not None else 1
            if not whole and (uses == 0 or item.alias is None):
                continue
            found.add(target, "import", uses)
        return FileDependencies(found.edges(), ())


class Script:
    """The TypeScript/TSX/JavaScript plugin (see
    :class:`context_server.core.languages.base.Language`)."""

    name = "script"
    dialects = (TYPESCRIPT, TSX, JAVASCRIPT)
    config_files = ("tsconfig.json", "jsconfig.json")

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """An ES module is named by its root-relative path."""
        return {path: path for path in paths}

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one script file."""
        return extract_script(dialect, text, module, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """Specifiers resolved by path, ``paths`` and ``baseUrl``."""
        return ScriptProject(sources, configs)

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """Users name a module's declarations only."""
        return ()


SCRIPT = Script()


def _options(data: bytes) -> dict[str, object]:
    """A config's JSON (comments and trailing commas allowed); unreadable means empty."""
    try:
        loaded = json5.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _join(folder: str, path: str) -> str | None:
    """``path`` relative to ``folder`` as a root-relative path; None when it leaves the root."""
    if path.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(folder, path))
    if joined == ".":
        return ""
    return None if joined == ".." or joined.startswith("../") else joined


def _match(pattern: str, specifier: str) -> str | None:
    """What ``*`` stands for when ``specifier`` matches ``pattern`` ('' for an exact one)."""
    if "*" not in pattern:
        return "" if pattern == specifier else None
    prefix, suffix = pattern.split("*", 1)
    if (
        specifier.startswith(prefix)
        and specifier.endswith(suffix)
        and len(specifier) >= len(prefix) + len(suffix)
    ):
        return specifier[len(prefix) : len(specifier) - len(suffix)]
    return None


def _candidates(path: str) -> Iterator[str]:
    """The files a module path may name, in the compiler's order."""
    stem, extension = posixpath.splitext(path)
    if extension in _EMITTED:
        for replacement in _EMITTED[extension]:
            yield stem + replacement
    elif extension in _EXTENSIONS:
        yield path
    for suffix in _EXTENSIONS:
        yield path + suffix
    folder = f"{path}/index" if path else "index"
    for suffix in _EXTENSIONS:
        yield folder + suffix
