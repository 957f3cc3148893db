"""Per-file facts from a tree-sitter syntax tree: package, imports, declarations, references.

References come only from identifier nodes of the syntax tree, so names inside comments and
string literals never count, while code inside string templates (``"${Foo()}"``) does.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import tree_sitter

from context_server.core.languages import LANGUAGES, SourceLanguage

_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_JAVA_IMPORT = re.compile(r"import\s+(?:static\s+)?([\w$]+(?:\s*\.\s*[\w$]+)*)(\s*\.\s*\*)?\s*;?")
_KOTLIN_IMPORT = re.compile(r"import\s+([\w.`]+?)(\.\*)?(?:\s+as\s+([\w`]+))?\s*;?\s*$")

_DECLARATIONS = {
    "java": frozenset(
        {
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
        }
    ),
    "kotlin": frozenset({"class_declaration", "object_declaration", "type_alias"}),
    "scala": frozenset(
        {"class_definition", "object_definition", "trait_definition", "enum_definition"}
    ),
    "python": frozenset({"class_definition"}),
}
# Declarations below one of these are local: invisible outside their body.
_LOCAL_SCOPES = {
    "java": frozenset(
        {
            "method_declaration",
            "constructor_declaration",
            "compact_constructor_declaration",
            "lambda_expression",
            "block",
            "object_creation_expression",
        }
    ),
    "kotlin": frozenset(
        {
            "function_declaration",
            "function_body",
            "lambda_literal",
            "anonymous_function",
            "object_literal",
            "anonymous_initializer",
            "getter",
            "setter",
            "secondary_constructor",
        }
    ),
    "scala": frozenset(
        {"function_definition", "block", "lambda_expression", "instance_expression"}
    ),
    "python": frozenset({"function_definition", "lambda"}),
}
_CHAINS = {
    "java": frozenset({"scoped_type_identifier", "scoped_identifier", "field_access"}),
    "kotlin": frozenset({"navigation_expression", "qualified_identifier"}),
    "scala": frozenset({"stable_type_identifier", "stable_identifier", "field_expression"}),
    "python": frozenset({"attribute"}),
}
_IMPORTS = frozenset({"import_declaration", "import", "import_statement", "import_from_statement"})
# Top-level nodes that may sit among the leading imports without ending them.
_INERT_HEADER = frozenset({"future_import_statement", "file_annotation"})
_PACKAGES = frozenset({"package_declaration", "package_header", "package_clause"})
_IDENTIFIERS = frozenset({"identifier", "type_identifier", "simple_identifier"})
_TYPE_PARAMETERS = frozenset({"type_parameter", "type_parameters"})
# Annotations name the annotation type through a "name" field: a use, not a declaration.
_ANNOTATIONS = frozenset({"marker_annotation", "annotation"})
# Kotlin names some declarations through a child that is not a "name" field.
_KOTLIN_NAMING_PARENTS = frozenset(
    {"variable_declaration", "class_parameter", "enum_entry", "parameter", "type_alias", "label"}
)


_QUERY_LOCK = threading.Lock()
_QUERIES: dict[str, tree_sitter.Query] = {}
_TYPE_IDENTIFIER_KINDS: dict[str, int] = {}


def _query(language: str) -> tree_sitter.Query:
    """One query per grammar capturing every node kind the collector looks at."""
    query = _QUERIES.get(language)
    if query is not None:
        return query
    captures = {
        "import": _IMPORTS,
        "declaration": _DECLARATIONS[language],
        "parameters": _TYPE_PARAMETERS,
        "identifier": _IDENTIFIERS,
    }
    grammar = next(lang for lang in LANGUAGES if lang.name == language).grammar_language()
    patterns = " ".join(
        f"({kind}) @{name}"
        for name, kinds in captures.items()
        for kind in sorted(kinds)
        if grammar.id_for_node_kind(kind, True)
    )
    with _QUERY_LOCK:
        if language not in _QUERIES:
            # The kind id first: a reader that finds the query must find the id too.
            kind = grammar.id_for_node_kind("type_identifier", True)
            _TYPE_IDENTIFIER_KINDS[language] = kind or -1
            _QUERIES[language] = tree_sitter.Query(grammar, patterns)
        return _QUERIES[language]


def _start(node: tree_sitter.Node) -> int:
    return node.start_byte


def _is_docstring(node: tree_sitter.Node) -> bool:
    children = node.named_children
    return (
        node.type == "expression_statement"
        and len(children) == 1
        and (children[0].type == "string")
    )


class _Ranges:
    """Byte ranges ``(start, end)``, answering "is this offset inside one of them"."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        pairs = sorted(spans)
        self._starts = [first for first, _ in pairs]
        self._ends = [last for _, last in pairs]
        self._last_end = max(self._ends, default=-1)

    def holds(self, offset: int) -> bool:
        if offset >= self._last_end:
            return False
        index = bisect.bisect_right(self._starts, offset) - 1
        return index >= 0 and offset < self._ends[index]


@dataclass(frozen=True, slots=True)
class Import:
    """One imported name: ``target`` is dotted; ``alias`` the name it binds, if renamed."""

    target: str
    alias: str | None = None
    wildcard: bool = False

    @property
    def bound_name(self) -> str:
        """The simple name this import makes visible (Python binds the first segment)."""
        return self.alias or self.target.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class Declaration:
    """A type declared in a file and visible outside its body."""

    simple_name: str
    qualified_name: str


@dataclass(frozen=True, slots=True)
class SourceFacts:
    """Everything resolution needs to know about one source file."""

    language: str
    package: str
    imports: tuple[Import, ...]
    declarations: tuple[Declaration, ...]
    local_names: frozenset[str]
    references: tuple[str, ...]
    module: str = ""


def extract(
    language: SourceLanguage, text: str, module: str = "", is_package: bool = False
) -> SourceFacts:
    """Parse ``text`` and collect its facts.

    ``module`` is the dotted Python module name and ``is_package`` whether the file is a
    package's ``__init__``; both are ignored for other languages, whose package comes from
    the source.
    """
    source = text.encode("utf-8")
    tree = language.parser().parse(source)
    collector = _Collector(language.name, module, is_package)
    collector.walk(tree.root_node, source)
    package = module if language.name == "python" else ".".join(collector.packages)
    return SourceFacts(
        language=language.name,
        package=package,
        imports=tuple(collector.imports),
        declarations=tuple(collector.declarations),
        local_names=frozenset(collector.local_names),
        references=tuple(dict.fromkeys(collector.references)),
        module=module,
    )


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


class _Collector:
    def __init__(self, language: str, module: str, is_package: bool) -> None:
        self.language = language
        self.module = module
        self.is_package = is_package
        self.packages: list[str] = []
        self.imports: list[Import] = []
        self.declarations: list[Declaration] = []
        self.local_names: set[str] = set()
        self.references: list[str] = []
        self._declaration_types = _DECLARATIONS[language]
        self._local_scopes = _LOCAL_SCOPES[language]
        self._chains = _CHAINS[language]

    def walk(self, root: tree_sitter.Node, source: bytes) -> None:
        header_end, spans = self._header(root)
        # The grammar's query engine finds the interesting nodes in C; Python only looks at
        # those (a few dozen per file), never at every node of the tree. The leading
        # package and import lines were read above, so the query starts after them.
        cursor = tree_sitter.QueryCursor(_query(self.language))
        cursor.set_byte_range(header_end, len(source))
        found = cursor.captures(root)
        imports = sorted(found.get("import", ()), key=_start)
        for node in imports:
            self._import(node)
        skipped = _Ranges([*spans, *((n.start_byte, n.end_byte) for n in imports)])
        names = self._declarations(found.get("declaration", ()))
        for node in found.get("parameters", ()):
            self._type_parameter(node)
        events: list[tuple[int, str]] = []
        chains: set[int] = set()
        python = self.language == "python"
        type_kind = _TYPE_IDENTIFIER_KINDS.get(self.language, -1)
        size = len(source)
        for node in found.get("identifier", ()):
            start = node.start_byte
            is_type_name = node.kind_id == type_kind
            # JVM value names start lower-case: the first byte rules out most identifiers
            # before any further look-up (non-ASCII first bytes get the full check).
            first = source[start] if start < size else 0
            if not (python or is_type_name or 65 <= first <= 90 or first >= 128):
                continue
            if start in names or skipped.holds(start):
                continue
            chain = self._dotted_chain(node)
            if chain is not None:
                if chain[0] not in chains:
                    chains.add(chain[0])
                    events.append(chain)
                continue
            name = _text(node)
            if self._is_reference(node, name, is_type_name):
                events.append((start, name))
        events.sort(key=lambda event: event[0])
        self.references.extend(text for _, text in events)

    def _header(self, root: tree_sitter.Node) -> tuple[int, list[tuple[int, int]]]:
        """Read the leading package and import lines; return where they end and the spans
        of package names (never references)."""
        header_end = 0
        spans: list[tuple[int, int]] = []
        for child in root.named_children:
            kind = child.type
            if kind in _PACKAGES:
                self._package(child)
                body = child.child_by_field_name("body")
                if body is None:
                    spans.append((child.start_byte, child.end_byte))
                    header_end = child.end_byte
                    continue
                # Scala `package a { ... }`: only the name is skipped, the body is code.
                spans.append((child.start_byte, body.start_byte))
                break
            if kind in _IMPORTS:
                self._import(child)
                header_end = child.end_byte
            elif not ("comment" in kind or kind in _INERT_HEADER or _is_docstring(child)):
                break
        return header_end, spans

    def _dotted_chain(self, node: tree_sitter.Node) -> tuple[int, str] | None:
        """The outermost dotted name (``a.b.Foo``, ``Outer.Inner``) the identifier is part of."""
        best: tuple[int, str] | None = None
        current = node.parent
        while current is not None and current.type in self._chains:
            compact = "".join(_text(current).split())
            if _DOTTED.fullmatch(compact):
                best = (current.start_byte, compact)
            current = current.parent
        return best

    def _is_local(self, node: tree_sitter.Node) -> bool:
        current = node.parent
        while current is not None:
            if current.type in self._local_scopes:
                return True
            current = current.parent
        return False

    def _declarations(self, nodes: Sequence[tree_sitter.Node]) -> set[int]:
        """Record declarations (nesting by byte ranges); return their name nodes' starts."""
        scope = self.module if self.language == "python" else ".".join(self.packages)
        open_scopes: list[tuple[int, str]] = []
        name_starts: set[int] = set()
        for node in sorted(nodes, key=_start):
            name_node = node.child_by_field_name("name")
            if name_node is None and node.type == "type_alias":
                name_node = node.child_by_field_name("type")
            name = _text(name_node) if name_node is not None else ""
            if name_node is None or not name:
                continue
            name_starts.add(name_node.start_byte)
            start, end = node.start_byte, node.end_byte
            while open_scopes and open_scopes[-1][0] <= start:
                open_scopes.pop()
            prefix = open_scopes[-1][1] if open_scopes else scope
            qualified = f"{prefix}.{name}" if prefix else name
            open_scopes.append((end, qualified))
            self.local_names.add(name)
            if not self._is_local(node):
                self.declarations.append(Declaration(name, qualified))
        return name_starts

    def _type_parameter(self, node: tree_sitter.Node) -> None:
        if node.type == "type_parameters" and self.language != "scala":
            return
        for child in node.children:
            if child.type in _IDENTIFIERS:
                self.local_names.add(_text(child))
                if node.type == "type_parameter":
                    return

    def _is_reference(self, node: tree_sitter.Node, name: str, is_type_name: bool) -> bool:
        if not name:
            return False
        # JVM value names start lower-case; checking first spares most parent look-ups.
        if not (is_type_name or self.language == "python" or name[0].isupper()):
            return False
        parent = node.parent
        if parent is None:
            return True
        named = parent.child_by_field_name("name")
        if named is not None and named.id == node.id and parent.type not in _ANNOTATIONS:
            return False
        if parent.type in _TYPE_PARAMETERS:
            return False
        return not (self.language == "kotlin" and parent.type in _KOTLIN_NAMING_PARENTS)

    # packages and imports ------------------------------------------------------------------
    def _package(self, node: tree_sitter.Node) -> None:
        for child in node.children:
            if (
                child.type in {"scoped_identifier", "identifier", "qualified_identifier"}
                or child.type == "package_identifier"
            ):
                self.packages.append("".join(_text(child).split()))

    def _import(self, node: tree_sitter.Node) -> None:
        if self.language == "java":
            self._java_import(node)
        elif self.language == "kotlin":
            self._kotlin_import(node)
        elif self.language == "scala":
            self._scala_import(node)
        else:
            self._python_import(node)

    def _java_import(self, node: tree_sitter.Node) -> None:
        text = _text(node)
        simple = _JAVA_IMPORT.fullmatch(text) if "/" not in text else None
        if simple is not None:
            # The common case without comments inside the statement: no child walk needed.
            target = "".join(simple.group(1).split())
            self.imports.append(Import(target, None, simple.group(2) is not None))
            return
        target = ""
        wildcard = False
        for child in node.children:
            if child.type in {"scoped_identifier", "identifier"}:
                target = "".join(_text(child).split())
            elif child.type == "asterisk":
                wildcard = True
        if target:
            self.imports.append(Import(target, None, wildcard))

    def _kotlin_import(self, node: tree_sitter.Node) -> None:
        text = " ".join(
            _text(c) for c in node.children if "comment" not in c.type and c.type != "import"
        )
        match = _KOTLIN_IMPORT.match("import " + text.replace(" . ", ".").replace(" .", "."))
        if match:
            target = match.group(1).replace("`", "")
            alias = match.group(3).replace("`", "") if match.group(3) else None
            self.imports.append(Import(target, alias, bool(match.group(2))))

    def _scala_import(self, node: tree_sitter.Node) -> None:
        path: list[str] = []
        for child in node.children:
            kind = child.type
            if kind == "identifier":
                path.append(_text(child))
            elif kind == "," and path:
                self.imports.append(Import(".".join(path)))
                path = []
            elif kind in {"namespace_wildcard", "wildcard"}:
                self.imports.append(Import(".".join(path), None, True))
                path = []
            elif kind == "namespace_selectors":
                self._scala_selectors(".".join(path), child)
                path = []
            elif kind in {"as_renamed_identifier", "arrow_renamed_identifier"}:
                self._scala_renamed(".".join(path), child)
                path = []
        if path:
            self.imports.append(Import(".".join(path)))

    def _scala_selectors(self, base: str, node: tree_sitter.Node) -> None:
        for child in node.children:
            if child.type == "identifier":
                self.imports.append(Import(f"{base}.{_text(child)}"))
            elif child.type in {"namespace_wildcard", "wildcard"}:
                self.imports.append(Import(base, None, True))
            elif child.type in {"as_renamed_identifier", "arrow_renamed_identifier"}:
                self._scala_renamed(base, child)

    def _scala_renamed(self, base: str, node: tree_sitter.Node) -> None:
        names = [_text(c) for c in node.children if c.type == "identifier"]
        if len(names) == 2 and names[1] != "_":
            self.imports.append(Import(f"{base}.{names[0]}" if base else names[0], names[1]))
        elif len(names) >= 1:
            # `Name => _` hides a name: it still names a project type the file mentions.
            self.imports.append(Import(f"{base}.{names[0]}" if base else names[0]))

    def _python_import(self, node: tree_sitter.Node) -> None:
        if node.type == "import_statement":
            for child in node.children:
                if child.type == "dotted_name":
                    self.imports.append(Import(_text(child), _text(child).split(".")[0]))
                elif child.type == "aliased_import":
                    target, alias = self._python_alias(child)
                    self.imports.append(Import(target, alias))
            return
        module_node = node.child_by_field_name("module_name")
        base = self._python_module(module_node) if module_node is not None else ""
        for child in node.children:
            if module_node is not None and child.id == module_node.id:
                continue
            if child.type == "wildcard_import":
                self.imports.append(Import(base, None, True))
            elif child.type == "dotted_name":
                name = _text(child)
                self.imports.append(Import(f"{base}.{name}" if base else name, name))
            elif child.type == "aliased_import":
                target, alias = self._python_alias(child)
                self.imports.append(Import(f"{base}.{target}" if base else target, alias))

    @staticmethod
    def _python_alias(node: tree_sitter.Node) -> tuple[str, str]:
        target = node.child_by_field_name("name")
        alias = node.child_by_field_name("alias")
        name = _text(target) if target is not None else ""
        return name, _text(alias) if alias is not None else name.split(".")[0]

    def _python_module(self, node: tree_sitter.Node) -> str:
        if node.type != "relative_import":
            return _text(node)
        dots = 0
        rest = ""
        for child in node.children:
            if child.type == "import_prefix":
                dots = len(_text(child).strip())
            elif child.type == "dotted_name":
                rest = _text(child)
        # Relative imports count from the module's package: the module itself for an
        # ``__init__``, its parent otherwise.
        parts = self.module.split(".") if self.module else []
        package = parts if self.is_package else parts[:-1]
        base_parts = package[: len(package) - (dots - 1)] if dots > 1 else package
        if dots - 1 > len(package):
            base_parts = []
        base = ".".join(base_parts)
        if rest:
            return f"{base}.{rest}" if base else rest
        return base
