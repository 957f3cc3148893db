"""Go: package facts and resolution by import path.

A Go package is a directory: its files see each other's top-level names without importing
them, and another package's exported (capitalised) names only through an import of its path.
An import path names a directory through the ``module`` line of a ``go.mod`` in the project
(the longest module path that prefixes it wins); a path no module of the project owns is a
package from outside: no edge. A use ``pkg.Name`` links the files of that package declaring
``Name``; a dot import makes those names usable unqualified; a blank import (``_``, for its
side effects) links every non-test file of the package. Files ending in ``_test.go`` are
never a dependency of a non-test file.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import tree_sitter
import tree_sitter_go

from context_server.core.facts import Declaration, EdgeSet, FileDependencies, Import, SourceFacts
from context_server.core.languages.base import Linker, SourceLanguage

GO = SourceLanguage("go", "Go", (".go",), tree_sitter_go.language)

_MODULE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)
_TEST_SUFFIX = "_test.go"
# A name of the file's own package beats the same file reached through an import.
_RANKING = {"package": 0, "import": 1}


def _query(language: SourceLanguage) -> tree_sitter.Query:
    return language.query("(identifier) @name (type_identifier) @name (package_identifier) @name")


def _text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def extract_go(
    language: SourceLanguage, text: str, module: str, span: tuple[int, int] | None = None
) -> SourceFacts:
    """The facts of the Go file at root-relative path ``module``.

    Imports carry the import path in ``target``, the name given to it in ``alias`` (``_``
    for a blank import) and ``wildcard`` for a dot import. References are ``pkg.Name`` for a
    qualified use and the plain name otherwise, from code only; with ``span``, only those
    inside it. Declarations are named ``<directory>.<Name>`` (methods ``<directory>.T.M``).
    """
    source = text.encode("utf-8")
    root = language.parser().parse(source).root_node
    scope = posixpath.dirname(module)
    package = ""
    imports: list[Import] = []
    declarations: list[Declaration] = []
    header_end = 0
    for child in root.named_children:
        if child.type == "package_clause":
            package = next((_text(c) for c in child.named_children), "")
            header_end = child.end_byte
        elif child.type == "import_declaration":
            imports.extend(_imports(child))
            header_end = child.end_byte
        else:
            declarations.extend(_declared(child, scope))
    names: list[str] = []
    cursor = tree_sitter.QueryCursor(_query(language))
    cursor.set_byte_range(header_end, len(source))
    for nodes in cursor.captures(root).values():
        for node in nodes:
            if span is not None and not span[0] <= node.start_byte < span[1]:
                continue
            name = _reference(node)
            if name:
                names.append(name)
    counts = Counter(names)
    return SourceFacts(
        language=language.name,
        package=package,
        imports=tuple(imports),
        declarations=tuple(declarations),
        local_names=frozenset(d.simple_name for d in declarations if not d.nested),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
    )


def _reference(node: tree_sitter.Node) -> str | None:
    """``pkg.Name`` for the package part of a qualified use, the name for a plain use, and
    nothing for the name part of a qualified use or a declaration's own name."""
    parent = node.parent
    if parent is None:
        return _text(node)
    if parent.type in {"selector_expression", "qualified_type"}:
        first = parent.child_by_field_name("operand") or parent.child_by_field_name("package")
        second = parent.child_by_field_name("field") or parent.child_by_field_name("name")
        if first is not None and first.id == node.id and second is not None:
            return f"{_text(node)}.{_text(second)}"
        if parent.type == "qualified_type":
            return None
    named = parent.child_by_field_name("name")
    if named is not None and named.id == node.id and parent.type != "selector_expression":
        return None
    if node.type == "package_identifier":
        return None
    return _text(node)


def _imports(node: tree_sitter.Node) -> Iterator[Import]:
    specs = [node]
    while specs:
        current = specs.pop(0)
        for child in current.named_children:
            if child.type == "import_spec_list":
                specs.append(child)
            elif child.type == "import_spec":
                path = child.child_by_field_name("path")
                target = "".join(
                    _text(c) for c in (path.named_children if path is not None else ())
                )
                name = child.child_by_field_name("name")
                if not target:
                    continue
                if name is not None and name.type == "dot":
                    yield Import(target, None, True)
                else:
                    yield Import(target, _text(name) if name is not None else None)


def _declared(node: tree_sitter.Node, scope: str) -> Iterator[Declaration]:
    lines = (node.start_point[0] + 1, node.end_point[0] + 1)
    where = (node.start_byte, node.end_byte)

    def qualified(name: str) -> str:
        return f"{scope}.{name}" if scope else name

    if node.type == "type_declaration":
        for spec in node.named_children:
            name = _text(spec.child_by_field_name("name"))
            if spec.type in {"type_spec", "type_alias"} and name:
                spec_lines = (spec.start_point[0] + 1, spec.end_point[0] + 1)
                span = (node.start_byte, node.end_byte)
                yield Declaration(name, qualified(name), "type", False, spec_lines, span)
    elif node.type == "function_declaration":
        name = _text(node.child_by_field_name("name"))
        if name:
            yield Declaration(name, qualified(name), "member", False, lines, where)
    elif node.type == "method_declaration":
        name = _text(node.child_by_field_name("name"))
        receiver = _receiver(node.child_by_field_name("receiver"))
        if name and receiver:
            full = qualified(f"{receiver}.{name}")
            yield Declaration(name, full, "member", True, lines, where)
    elif node.type in {"var_declaration", "const_declaration"}:
        for spec in node.named_children:
            if spec.type not in {"var_spec", "const_spec"}:
                continue
            for child in spec.children_by_field_name("name"):
                name = _text(child)
                if name and name != "_":
                    yield Declaration(name, qualified(name), "member", False, lines, where)


def _receiver(node: tree_sitter.Node | None) -> str:
    """The type name of a method receiver (``(r *Repo[T])`` gives ``Repo``)."""
    if node is None:
        return ""
    stack = list(node.named_children)
    while stack:
        current = stack.pop(0)
        if current.type == "type_identifier":
            return _text(current)
        stack.extend(current.named_children)
    return ""


@dataclass(frozen=True, slots=True)
class _Package:
    """The files of one directory and the top-level names each declares."""

    files: tuple[str, ...]
    declared: Mapping[str, tuple[str, ...]]
    name: str


class GoProject:
    """Resolves the project's Go files: same-package names and imported packages."""

    def __init__(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> None:
        self._modules: list[tuple[str, str]] = []
        for path, data in configs.items():
            if posixpath.basename(path) != "go.mod":
                continue
            match = _MODULE.search(data)
            if match is not None:
                self._modules.append(
                    (match.group(1).decode("utf-8", "replace"), posixpath.dirname(path))
                )
        # The longest module path first: a nested module owns its own sub-tree.
        self._modules.sort(key=lambda item: -len(item[0]))
        folders: dict[str, list[str]] = {}
        for path in sorted(sources):
            folders.setdefault(posixpath.dirname(path), []).append(path)
        self._packages: dict[str, _Package] = {}
        self._declared: dict[str, list[str]] = {}
        for folder, files in folders.items():
            declared: dict[str, list[str]] = {}
            for path in files:
                for declaration in sources[path].declarations:
                    holders = self._declared.setdefault(declaration.qualified_name, [])
                    if path not in holders:
                        holders.append(path)
                    if not declaration.nested:
                        owners = declared.setdefault(declaration.simple_name, [])
                        if path not in owners:
                            owners.append(path)
            library = [p for p in files if not p.endswith(_TEST_SUFFIX)]
            name = sources[library[0] if library else files[0]].package
            self._packages[folder] = _Package(
                tuple(files), {k: tuple(v) for k, v in declared.items()}, name
            )

    def folder(self, import_path: str) -> str | None:
        """The project directory ``import_path`` names, if a module of the project owns it."""
        for module, folder in self._modules:
            if import_path == module or import_path.startswith(module + "/"):
                rest = import_path[len(module) + 1 :]
                found = posixpath.join(folder, rest) if rest else folder
                return found if found in self._packages else None
        return None

    def declared(self, name: str) -> tuple[str, ...]:
        """Files declaring ``name`` (``<directory>.<Name>``)."""
        return tuple(self._declared.get(name, ()))

    def edges(self, relative: str, facts: SourceFacts, whole: bool) -> FileDependencies:
        """The files ``facts`` depends on, with the rule (``package``/``import``) and uses."""
        is_test = relative.endswith(_TEST_SUFFIX)
        found = EdgeSet(relative, _RANKING)

        def add(owners: tuple[str, ...], rule: str, uses: int) -> None:
            for owner in owners:
                if not owner.endswith(_TEST_SUFFIX) or is_test:
                    found.add(owner, rule, uses)

        bound: dict[str, _Package] = {}
        dotted: list[_Package] = []
        for item in facts.imports:
            folder = self.folder(item.target)
            if folder is None:
                continue
            package = self._packages[folder]
            if item.wildcard:
                dotted.append(package)
            elif item.alias == "_":
                if whole:
                    add(package.files, "import", 0)
            else:
                bound[item.alias or package.name] = package
        own = self._packages.get(posixpath.dirname(relative))
        uses = facts.uses or (1,) * len(facts.references)
        for reference, count in zip(facts.references, uses, strict=True):
            first, _, rest = reference.partition(".")
            if first in bound and rest and first not in facts.local_names:
                if rest[:1].isupper():
                    add(bound[first].declared.get(rest, ()), "import", count)
                continue
            if first in facts.local_names:
                continue
            if own is not None and own.name == facts.package:
                add(own.declared.get(first, ()), "package", count)
            if first[:1].isupper():
                for package in dotted:
                    add(package.declared.get(first, ()), "import", count)
        return FileDependencies(found.edges(), ())


class Go:
    """The Go plugin (see :class:`context_server.core.languages.base.Language`)."""

    name = "go"
    dialects = (GO,)
    config_files = ("go.mod",)

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """A Go file is named by its root-relative path (its package is its directory)."""
        return {path: path for path in paths}

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one Go file."""
        return extract_go(dialect, text, module, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """Packages by directory, import paths through ``go.mod``."""
        return GoProject(sources, configs)

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """Users name a package's declarations only."""
        return ()


GO_LANGUAGE = Go()
