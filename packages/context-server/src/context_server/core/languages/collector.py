"""A table-driven collector of per-file facts for languages named by packages and types.

The JVM languages and Python share how facts come out of their syntax trees: a leading
header of package and import lines, type declarations (nesting by byte ranges), top-level
functions and values, and references from identifier nodes only, so names inside comments
and string literals never count, while code inside string templates (``"${Foo()}"``) does.
What differs between them is data (:class:`CollectorSpec`), given by each language module.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import tree_sitter

from context_server.core.facts import Declaration, Import, SourceFacts
from context_server.core.languages.base import Parsed, SourceLanguage

_ANNOTATION = re.compile(r"@[\w$.]+")
_SUPERTYPE_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*")
_BRACKETED = re.compile(r"<[^<>]*>|\[[^\[\]]*\]|\([^()]*\)")
_SUPERTYPE_KEYWORDS = frozenset({"extends", "implements", "with", "by"})
# Nodes listing what a type extends or implements.
_SUPERTYPES = frozenset(
    {
        "superclass",
        "super_interfaces",
        "extends_interfaces",
        "delegation_specifiers",
        "extends_clause",
    }
)
# A type declared at the start of a line, after any modifiers (JVM languages).
_TOP_LEVEL_TYPE = re.compile(
    rb"^(?:(?:public|internal|private|protected|open|abstract|sealed|data|enum|annotation|"
    rb"value|inline|final|static|strictfp|expect|actual|case|implicit|fun)\s+)*"
    rb"(?:class|interface|object|trait|record|@interface|typealias)\s+([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
_INDENTED_TYPE = re.compile(
    rb"^[ \t]+(?:(?:public|internal|private|protected|open|abstract|sealed|data|enum|"
    rb"annotation|value|inline|final|static|inner|case|implicit)\s+)*"
    rb"(?:class|interface|object|trait|record|typealias)\s+([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_IMPORTS = frozenset({"import_declaration", "import", "import_statement", "import_from_statement"})
# Top-level nodes that may sit among the leading imports without ending them.
_INERT_HEADER = frozenset({"future_import_statement", "file_annotation"})
_PACKAGES = frozenset({"package_declaration", "package_header", "package_clause"})
_IDENTIFIERS = frozenset({"identifier", "type_identifier", "simple_identifier"})
_TYPE_PARAMETERS = frozenset({"type_parameter", "type_parameters"})
# Annotations name the annotation type through a "name" field: a use, not a declaration.
_ANNOTATIONS = frozenset({"marker_annotation", "annotation"})

ImportReader = Callable[[tree_sitter.Node, str, bool], Iterable[Import]]
"""Reads one import statement (node, the file's module, whether it is a package's
``__init__``) into the imports it makes."""


class Rescue:
    """When to add top-level types from the text the syntax tree missed."""

    NEVER = 0
    ON_ERROR = 1
    ALWAYS = 2


@dataclass(frozen=True)
class CollectorSpec:
    """What one dialect's syntax tree looks like to the collector.

    ``declarations``: node kinds declaring a type; ``members``: top-level functions and
    values importable by name; ``local_scopes``: below these, declarations are local;
    ``chains``: nodes of a dotted name; ``read_import``: the import statement reader.
    ``module_scope``: the file's module (not a package clause) qualifies its declarations
    and is its package; ``every_identifier``: lower-case names are references too (else only
    capitalised ones and type identifiers); ``rescue``: see :class:`Rescue`;
    ``parameter_lists``: a whole type parameter list names local types (Scala);
    ``naming_parents``: parents whose identifier child is a declared name (Kotlin).
    """

    declarations: frozenset[str]
    members: frozenset[str]
    local_scopes: frozenset[str]
    chains: frozenset[str]
    read_import: ImportReader
    module_scope: bool = False
    every_identifier: bool = False
    rescue: int = Rescue.ON_ERROR
    parameter_lists: bool = False
    naming_parents: frozenset[str] = frozenset()
    module_imports: Callable[[tree_sitter.Node], Iterable[Import]] | None = None
    """Further imports read from the file's top level (Python's ``Name = module.Name``)."""


_QUERY_LOCK = threading.Lock()
_QUERIES: dict[str, tuple[tree_sitter.Query, int]] = {}


def _query(dialect: SourceLanguage, spec: CollectorSpec) -> tuple[tree_sitter.Query, int]:
    """One query per grammar capturing every node kind the collector looks at, and the
    grammar's id of ``type_identifier``."""
    known = _QUERIES.get(dialect.name)
    if known is not None:
        return known
    captures = {
        "import": _IMPORTS,
        "declaration": spec.declarations,
        "parameters": _TYPE_PARAMETERS,
        "identifier": _IDENTIFIERS,
    }
    grammar = dialect.grammar_language()
    patterns = " ".join(
        f"({kind}) @{name}"
        for name, kinds in captures.items()
        for kind in sorted(kinds)
        if grammar.id_for_node_kind(kind, True)
    )
    with _QUERY_LOCK:
        if dialect.name not in _QUERIES:
            _QUERIES[dialect.name] = (dialect.query(patterns), dialect.node_kind("type_identifier"))
        return _QUERIES[dialect.name]


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


def collect(
    dialect: SourceLanguage,
    spec: CollectorSpec,
    text: str,
    module: str = "",
    is_package: bool = False,
    span: tuple[int, int] | None = None,
) -> SourceFacts:
    """Parse ``text`` and collect its facts.

    ``module`` is the dotted module name (used with ``spec.module_scope``) and
    ``is_package`` whether the file is a package's ``__init__``. With ``span`` (byte offsets
    of one declaration), only references inside it are collected: what that declaration
    alone needs (imports and declarations stay whole).
    """
    source = text.encode("utf-8")
    parsed = dialect.parse(source)
    tree = parsed.tree
    collector = _Collector(dialect, spec, module, is_package)
    collector.walk(parsed, source, span)
    # The Kotlin grammar misreads some valid declarations without reporting an error.
    if spec.rescue == Rescue.ALWAYS or (
        tree.root_node.has_error and spec.rescue == Rescue.ON_ERROR
    ):
        collector.rescue_declarations(source)
    package = module if spec.module_scope else ".".join(collector.packages)
    counts = Counter(collector.references)
    if spec.module_imports is not None:
        collector.imports.extend(spec.module_imports(tree.root_node))
    return SourceFacts(
        language=dialect.name,
        package=package,
        imports=tuple(collector.imports),
        declarations=tuple(collector.declarations),
        local_names=frozenset(collector.local_names),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
        supertypes=tuple(dict.fromkeys(collector.supertypes)),
    )


def text_of(node: tree_sitter.Node) -> str:
    """The source text of ``node``."""
    return (node.text or b"").decode("utf-8", "replace")


class _Collector:
    def __init__(
        self, dialect: SourceLanguage, spec: CollectorSpec, module: str, is_package: bool
    ) -> None:
        self.dialect = dialect
        self.spec = spec
        self.module = module
        self.is_package = is_package
        self.packages: list[str] = []
        self.imports: list[Import] = []
        self.declarations: list[Declaration] = []
        self.local_names: set[str] = set()
        self.references: list[str] = []
        self.supertypes: list[str] = []

    def walk(self, parsed: Parsed, source: bytes, span: tuple[int, int] | None = None) -> None:
        root = parsed.root
        header_end, spans = self._header(root)
        self._top_level_members(root)
        # The grammar's query engine finds the interesting nodes in C; Python only looks at
        # those (a few dozen per file), never at every node of the tree. The leading
        # package and import lines were read above, so the query starts after them.
        query, type_kind = _query(self.dialect, self.spec)
        cursor = tree_sitter.QueryCursor(query)
        cursor.set_byte_range(header_end, len(source))
        found = cursor.captures(root)
        imports = sorted(found.get("import", ()), key=_start)
        scoped: list[tuple[int, int, str, str]] = []
        for node in parsed.each(imports):
            self._import(node, scoped)
        # innermost scope first
        scoped.sort(key=lambda entry: entry[1] - entry[0])
        skipped = _Ranges([*spans, *((n.start_byte, n.end_byte) for n in imports)])
        names = self._declarations(parsed, found.get("declaration", ()))
        for node in parsed.each(found.get("parameters", ())):
            self._type_parameter(node)
        events: list[tuple[int, str]] = []
        chains: set[int] = set()
        every = self.spec.every_identifier
        size = len(source)
        for node in parsed.each(found.get("identifier", ())):
            start = node.start_byte
            is_type_name = node.kind_id == type_kind
            # JVM value names start lower-case: the first byte rules out most identifiers
            # before any further look-up (non-ASCII first bytes get the full check).
            first = source[start] if start < size else 0
            if not (every or is_type_name or 65 <= first <= 90 or first >= 128):
                continue
            if start in names or skipped.holds(start):
                continue
            if span is not None and not span[0] <= start < span[1]:
                continue
            chain = self._dotted_chain(node)
            if chain is not None:
                if chain[0] not in chains:
                    chains.add(chain[0])
                    events.append((chain[0], _scoped(chain[1], start, scoped)))
                continue
            name = text_of(node)
            if self._is_reference(node, name, is_type_name):
                events.append((start, _scoped(name, start, scoped)))
        events.sort(key=lambda event: event[0])
        self.references.extend(text for _, text in events)
        self.declarations.sort(key=lambda declaration: declaration.span)

    def rescue_declarations(self, source: bytes) -> None:
        """Declare the top-level types of a file the grammar could not fully parse.

        A type declared at the start of a line is top-level by every formatting
        convention; those the syntax tree missed (``annotation class OkHttpInternalApi``
        after multi-line annotations reads as an expression to the Kotlin grammar) are added
        from the text.
        """
        known = {declaration.simple_name for declaration in self.declarations}
        scope = ".".join(self.packages)
        # An indented one (nested, or local to a function) is at least a name of this file:
        # its uses here are no dependency on another file.
        self.local_names.update(
            match.group(1).decode("utf-8", "replace") for match in _INDENTED_TYPE.finditer(source)
        )
        for match in _TOP_LEVEL_TYPE.finditer(source):
            name = match.group(1).decode("utf-8", "replace")
            if name in known:
                continue
            known.add(name)
            self.local_names.add(name)
            line = source.count(b"\n", 0, match.start()) + 1
            self.declarations.append(
                Declaration(
                    name,
                    f"{scope}.{name}" if scope else name,
                    "type",
                    False,
                    (line, line),
                    (match.start(), len(source)),
                )
            )

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

    def _scope(self) -> str:
        return self.module if self.spec.module_scope else ".".join(self.packages)

    def _top_level_members(self, root: tree_sitter.Node) -> None:
        """Declare the file's top-level functions and values (importable by name)."""
        kinds = self.spec.members
        if not kinds:
            return
        scope = self._scope()
        for child in root.named_children:
            if child.type not in kinds:
                continue
            definition = child.child_by_field_name("definition") or child
            if definition.type not in kinds:
                continue  # a decorated class: declared with the types
            name_node = definition.child_by_field_name("name") or definition.child_by_field_name(
                "pattern"
            )
            if name_node is None and definition.type == "property_declaration":
                variable = next(
                    (c for c in definition.named_children if c.type == "variable_declaration"),
                    None,
                )
                name_node = variable.named_children[0] if variable is not None else None
            if name_node is None or name_node.type not in _IDENTIFIERS:
                continue
            name = text_of(name_node)
            self.declarations.append(
                Declaration(
                    name,
                    f"{scope}.{name}" if scope else name,
                    "member",
                    False,
                    (child.start_point[0] + 1, child.end_point[0] + 1),
                    (child.start_byte, child.end_byte),
                )
            )

    def _dotted_chain(self, node: tree_sitter.Node) -> tuple[int, str] | None:
        """The outermost dotted name (``a.b.Foo``, ``Outer.Inner``) the identifier is part of."""
        best: tuple[int, str] | None = None
        current = node.parent
        chains = self.spec.chains
        while current is not None and current.type in chains:
            if current.type == "user_type":
                # A Kotlin type ``a.b.Outer.Inner<T>``: its own segments, not the arguments.
                parts = [text_of(c) for c in current.named_children if c.type in _IDENTIFIERS]
                if len(parts) > 1:
                    best = (current.start_byte, ".".join(parts))
                current = current.parent
                continue
            # A type-use annotation inside a qualified name (``a.b.@Nullable Foo``) is no
            # segment of it.
            compact = "".join(_ANNOTATION.sub("", text_of(current)).split())
            if _DOTTED.fullmatch(compact):
                best = (current.start_byte, compact)
            current = current.parent
        return best

    def _is_local(self, node: tree_sitter.Node) -> bool:
        current = node.parent
        while current is not None:
            if current.type in self.spec.local_scopes:
                return True
            current = current.parent
        return False

    def _declarations(self, parsed: Parsed, nodes: Sequence[tree_sitter.Node]) -> set[int]:
        """Record declarations (nesting by byte ranges); return their name nodes' starts."""
        scope = self._scope()
        open_scopes: list[tuple[int, str]] = []
        name_starts: set[int] = set()
        for node in parsed.each(sorted(nodes, key=_start)):
            name_node = node.child_by_field_name("name")
            if name_node is None and node.type == "type_alias":
                name_node = node.child_by_field_name("type")
            name = text_of(name_node) if name_node is not None else ""
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
            self._supertypes(node)
            if not self._is_local(node):
                self.declarations.append(
                    Declaration(
                        name,
                        qualified,
                        "type",
                        len(open_scopes) > 1,
                        (node.start_point[0] + 1, node.end_point[0] + 1),
                        (start, end),
                    )
                )
        return name_starts

    def _supertypes(self, node: tree_sitter.Node) -> None:
        """Record the names ``node`` extends or implements, without type or value arguments."""
        for child in node.named_children:
            if child.type not in _SUPERTYPES:
                continue
            text = _ANNOTATION.sub("", text_of(child))
            stripped = _BRACKETED.sub("", text)
            while stripped != text:
                text, stripped = stripped, _BRACKETED.sub("", stripped)
            for match in _SUPERTYPE_NAME.finditer(text):
                name = "".join(match.group().split())
                if name in _SUPERTYPE_KEYWORDS or not ("." in name or name[:1].isupper()):
                    continue
                self.supertypes.append(name)

    def _type_parameter(self, node: tree_sitter.Node) -> None:
        if node.type == "type_parameters" and not self.spec.parameter_lists:
            return
        for child in node.children:
            if child.type in _IDENTIFIERS:
                self.local_names.add(text_of(child))
                if node.type == "type_parameter":
                    return

    def _is_reference(self, node: tree_sitter.Node, name: str, is_type_name: bool) -> bool:
        if not name:
            return False
        # JVM value names start lower-case; checking first spares most parent look-ups.
        if not (is_type_name or self.spec.every_identifier or name[0].isupper()):
            return False
        parent = node.parent
        if parent is None:
            return True
        named = parent.child_by_field_name("name")
        if named is not None and named.id == node.id and parent.type not in _ANNOTATIONS:
            return False
        if parent.type in _TYPE_PARAMETERS:
            return False
        return parent.type not in self.spec.naming_parents

    def _package(self, node: tree_sitter.Node) -> None:
        for child in node.children:
            if (
                child.type in {"scoped_identifier", "identifier", "qualified_identifier"}
                or child.type == "package_identifier"
            ):
                self.packages.append("".join(text_of(child).split()))

    def _import(
        self, node: tree_sitter.Node, scoped: list[tuple[int, int, str, str]] | None = None
    ) -> None:
        """Record an import statement; one inside a function (a local scope) binds its names
        there only: as ``name@<offset of the scope>``, which the references inside use."""
        found = self.spec.read_import(node, self.module, self.is_package)
        owner = self._scope_of(node) if scoped is not None else None
        if owner is None or scoped is None:
            self.imports.extend(found)
            return
        for item in found:
            if item.wildcard:
                self.imports.append(item)
                continue
            bound = f"{item.bound_name}@{owner.start_byte}"
            scoped.append((owner.start_byte, owner.end_byte, item.bound_name, bound))
            self.imports.append(replace(item, alias=bound))

    def _scope_of(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        current = node.parent
        while current is not None:
            if current.type in self.spec.local_scopes:
                return current
            current = current.parent
        return None


def _scoped(name: str, start: int, scoped: list[tuple[int, int, str, str]]) -> str:
    """``name`` with its first segment renamed to the scoped import covering ``start``."""
    first, separator, rest = name.partition(".")
    for low, high, bound_name, bound in scoped:
        if low <= start < high and first == bound_name:
            return bound + separator + rest
    return name
