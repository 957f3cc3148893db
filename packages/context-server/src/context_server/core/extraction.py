"""Per-file facts from a tree-sitter syntax tree: package, imports, declarations, references.

References come only from identifier nodes of the syntax tree, so names inside comments and
string literals never count, while code inside string templates (``"${Foo()}"``) does.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import tree_sitter

from context_server.core.languages import LANGUAGES, SourceLanguage

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
        {
            "class_definition",
            "object_definition",
            "trait_definition",
            "enum_definition",
            "package_object",
        }
    ),
    "python": frozenset({"class_definition"}),
}
# Top-level functions and values another file can import by name (Kotlin's
# ``import okhttp3.internal.closeQuietly``, Scala 3's top-level ``def``, a Python function).
_TOP_LEVEL_MEMBERS = {
    "java": frozenset[str](),
    "kotlin": frozenset({"function_declaration", "property_declaration"}),
    "scala": frozenset({"function_definition", "val_definition", "var_definition"}),
    "python": frozenset({"function_definition", "decorated_definition"}),
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
    "kotlin": frozenset({"navigation_expression", "qualified_identifier", "user_type"}),
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
    """A name declared in a file and visible outside its body.

    ``kind`` is ``type`` (class, interface, object, enum, record, alias) or ``member`` (a
    top-level function or value); ``nested`` says whether it sits inside another type.
    ``lines`` (1-based, inclusive) and ``span`` (byte offsets) locate its whole definition.
    """

    simple_name: str
    qualified_name: str
    kind: str = "type"
    nested: bool = False
    lines: tuple[int, int] = (0, 0)
    span: tuple[int, int] = (0, 0)


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
    uses: tuple[int, ...] = ()
    """How often each of ``references`` occurs in the code (same order)."""
    supertypes: tuple[str, ...] = ()
    """The names the file's types extend or implement, as written (JVM languages)."""


def extract(
    language: SourceLanguage,
    text: str,
    module: str = "",
    is_package: bool = False,
    span: tuple[int, int] | None = None,
) -> SourceFacts:
    """Parse ``text`` and collect its facts.

    ``module`` is the dotted Python module name (the root-relative path for a language with
    ``path_modules``) and ``is_package`` whether the file is a package's ``__init__``; both
    are ignored for other languages, whose package comes from the source. With ``span``
    (byte offsets of one declaration), only references inside it are collected: what that
    declaration alone needs (imports and declarations stay whole).
    """
    if language.name not in _DECLARATIONS:
        # Imported here: the per-language extractors build on this module's fact types.
        from context_server.core.lang_csharp import extract_csharp
        from context_server.core.lang_go import extract_go
        from context_server.core.lang_rust import extract_rust
        from context_server.core.lang_script import extract_script

        special = {"go": extract_go, "csharp": extract_csharp, "rust": extract_rust}.get(
            language.name, extract_script
        )
        return special(language, text, module, span)
    source = text.encode("utf-8")
    tree = language.parser().parse(source)
    collector = _Collector(language.name, module, is_package)
    collector.walk(tree.root_node, source, span)
    # The Kotlin grammar misreads some valid declarations without reporting an error.
    if language.name == "kotlin" or (tree.root_node.has_error and language.name != "python"):
        collector.rescue_declarations(source)
    package = module if language.name == "python" else ".".join(collector.packages)
    counts = Counter(collector.references)
    return SourceFacts(
        language=language.name,
        package=package,
        imports=tuple(collector.imports),
        declarations=tuple(collector.declarations),
        local_names=frozenset(collector.local_names),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
        supertypes=tuple(dict.fromkeys(collector.supertypes)),
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
        self.supertypes: list[str] = []
        self._declaration_types = _DECLARATIONS[language]
        self._local_scopes = _LOCAL_SCOPES[language]
        self._chains = _CHAINS[language]

    def walk(
        self, root: tree_sitter.Node, source: bytes, span: tuple[int, int] | None = None
    ) -> None:
        header_end, spans = self._header(root)
        self._top_level_members(root)
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
            if span is not None and not span[0] <= start < span[1]:
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

    def _top_level_members(self, root: tree_sitter.Node) -> None:
        """Declare the file's top-level functions and values (importable by name)."""
        kinds = _TOP_LEVEL_MEMBERS[self.language]
        if not kinds:
            return
        scope = self.module if self.language == "python" else ".".join(self.packages)
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
            name = _text(name_node)
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
        while current is not None and current.type in self._chains:
            if current.type == "user_type":
                # A Kotlin type ``a.b.Outer.Inner<T>``: its own segments, not the arguments.
                parts = [_text(c) for c in current.named_children if c.type in _IDENTIFIERS]
                if len(parts) > 1:
                    best = (current.start_byte, ".".join(parts))
                current = current.parent
                continue
            # A type-use annotation inside a qualified name (``a.b.@Nullable Foo``) is no
            # segment of it.
            compact = "".join(_ANNOTATION.sub("", _text(current)).split())
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
            text = _ANNOTATION.sub("", _text(child))
            stripped = _BRACKETED.sub("", text)
            while stripped != text:
                text, stripped = stripped, _BRACKETED.sub("", stripped)
            for match in _SUPERTYPE_NAME.finditer(text):
                name = "".join(match.group().split())
                if name in _SUPERTYPE_KEYWORDS or not ("." in name or name[:1].isupper()):
                    continue
                self.supertypes.append(name)

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
