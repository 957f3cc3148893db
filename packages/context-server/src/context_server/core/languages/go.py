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

from context_server.core.facts import (
    Alternative,
    Declaration,
    EdgeSet,
    Import,
    Linked,
    LinkKeys,
    SourceFacts,
)
from context_server.core.languages.base import Linker, Parsed, SourceLanguage, in_order

GO = SourceLanguage("go", "Go", (".go",), tree_sitter_go.language)

_MODULE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)
_TEST_SUFFIX = "_test.go"
GOOSES = frozenset(
    [
        "aix",
        "android",
        "darwin",
        "dragonfly",
        "freebsd",
        "hurd",
        "illumos",
        "ios",
        "js",
        "linux",
        "nacl",
        "netbsd",
        "openbsd",
        "plan9",
        "solaris",
        "wasip1",
        "windows",
        "zos",
    ]
)
GOARCHES = frozenset(
    [
        "386",
        "amd64",
        "amd64p32",
        "arm",
        "armbe",
        "arm64",
        "arm64be",
        "loong64",
        "mips",
        "mipsle",
        "mips64",
        "mips64le",
        "mips64p32",
        "mips64p32le",
        "ppc",
        "ppc64",
        "ppc64le",
        "riscv",
        "riscv64",
        "s390",
        "s390x",
        "sparc",
        "sparc64",
        "wasm",
    ]
)
# The systems the "unix" build constraint matches: every known GOOS but these six.
_UNIX = GOOSES - {"js", "nacl", "plan9", "wasip1", "windows", "zos"}
# The build a project is read as: linux/amd64 with cgo and no custom tags.
_DEFAULT_GOOS, _DEFAULT_GOARCH = "linux", "amd64"
_DEFAULT_TAGS = frozenset({"cgo", "gc"})
_TOKEN = re.compile(r"\s*(\|\||&&|!|\(|\)|[\w.]+)")
MAX_CONSTRAINT_TERMS = 10
"""Distinct tags two constraints may name before they are taken as compatible unchecked."""
# A name of the file's own package beats the same file reached through an import.
_RANKING = {"package": 0, "import": 1}


def _query(language: SourceLanguage) -> tree_sitter.Query:
    return language.query("(identifier) @name (type_identifier) @name (package_identifier) @name")


# Names a function declares for its own body: parameters, receivers, `:=`, `var`, `range`.
_LOCALS = """
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(range_clause left: (expression_list (identifier) @local))
(type_switch_statement alias: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
(const_spec name: (identifier) @local)
"""
_FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal"})


def _locals(language: SourceLanguage, parsed: Parsed) -> dict[str, list[tuple[int, int]]]:
    """Every name declared inside a function, with the byte ranges of those functions."""
    found: dict[str, list[tuple[int, int]]] = {}
    captures = tree_sitter.QueryCursor(language.query(_LOCALS)).captures(parsed.root)
    for node in parsed.each(captures.get("local", ())):
        scope = node.parent
        while scope is not None and scope.type not in _FUNCTIONS:
            scope = scope.parent
        if scope is not None:
            found.setdefault(_text(node), []).append((scope.start_byte, scope.end_byte))
    return found


def _text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def extract_go(
    language: SourceLanguage, text: str, module: str, span: tuple[int, int] | None = None
) -> SourceFacts:
    """The facts of the Go file at root-relative path ``module``.

    Imports carry the import path in ``target``, the name given to it in ``alias`` (``_``
    for a blank import) and ``wildcard`` for a dot import. References are ``pkg.Name`` for a
    qualified use and the plain name otherwise, from code only; with ``span``, only those
    inside it, and when ``span`` is a type's declaration, those of the type's methods in the
    file too (the facts' ``focus`` names the type). Declarations are named
    ``<directory>.<Name>`` (methods ``<directory>.T.M``). The file's build constraint
    (``//go:build``, else ``// +build`` lines, and its name's ``_GOOS``/``_GOARCH`` suffixes)
    is its ``condition``.
    """
    source = text.encode("utf-8")
    parsed = language.parse(source)
    root = parsed.root
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
    spans = [span] if span is not None else []
    focus = ""
    if span is not None:
        owner = next((d for d in declarations if d.kind == "type" and d.span == span), None)
        if owner is not None:
            focus = owner.qualified_name
            prefix = f"{owner.qualified_name}."
            spans.extend(d.span for d in declarations if d.qualified_name.startswith(prefix))
    names: list[str] = []
    cursor = tree_sitter.QueryCursor(_query(language))
    cursor.set_byte_range(header_end, len(source))
    shadowing = _locals(language, parsed)
    for node in parsed.each(in_order(cursor.captures(root))):
        start = node.start_byte
        if spans and not any(low <= start < high for low, high in spans):
            continue
        name = _reference(node)
        if not name:
            continue
        first = name.split(".", 1)[0]
        # a parameter or local variable: no package-level name (and ``x.F`` a field of it)
        if any(low <= start < high for low, high in shadowing.get(first, ())):
            continue
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
        condition=constraint(text, module),
        focus=focus,
    )


def constraint(text: str, path: str) -> str:
    """The build constraint of a Go file as one boolean expression ("" when it has none):
    its ``//go:build`` line (else its ``// +build`` lines) before the package clause, and
    what its file name says (``x_linux.go``, ``x_windows_amd64.go``)."""
    parts: list[str] = []
    legacy: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("package ") or stripped == "package":
            break
        if stripped.startswith("//go:build "):
            parts.append(f"({stripped[len('//go:build ') :].strip()})")
        elif stripped.startswith("// +build "):
            # space-separated options are ORed, comma-separated terms ANDed
            options = stripped[len("// +build ") :].split()
            legacy.append(
                "(" + " || ".join("(" + " && ".join(o.split(",")) + ")" for o in options) + ")"
            )
    if not parts and legacy:
        parts.extend(legacy)
    stem = posixpath.basename(path).removesuffix(".go").removesuffix("_test")
    pieces = stem.split("_")[1:]
    if pieces and pieces[-1] in GOARCHES:
        if len(pieces) > 1 and pieces[-2] in GOOSES:
            parts.append(f"({pieces[-2]} && {pieces[-1]})")
        else:
            parts.append(pieces[-1])
    elif pieces and pieces[-1] in GOOSES:
        parts.append(pieces[-1])
    return " && ".join(parts)


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
    if _field_key(node):
        return None
    if node.type == "package_identifier":
        return None
    return _text(node)


_INDEXED = frozenset({"map_type", "slice_type", "array_type", "implicit_length_array_type"})


def _field_key(node: tree_sitter.Node) -> bool:
    """Whether ``node`` is the key of a keyed element in a struct literal (``Pool{New: f}``):
    a field name, no use of a package-level ``New``. A map's, slice's or array's keys are
    expressions; a literal of a named type is taken as a struct's."""
    element = node.parent
    keyed = element.parent if element is not None else None
    if element is None or keyed is None or element.type != "literal_element":
        return False
    if keyed.type != "keyed_element" or keyed.named_children[0].id != element.id:
        return False
    kind = _literal_type(keyed.parent)
    return kind is None or kind.type not in _INDEXED


def _literal_type(value: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The type of the composite literal whose ``literal_value`` is ``value``: written out,
    or for an elided inner literal (``[]T{{…}}``) the element type of the enclosing one."""
    depth = 0
    while value is not None and value.type == "literal_value":
        owner = value.parent
        if owner is not None and owner.type == "composite_literal":
            written = owner.child_by_field_name("type")
            for _ in range(depth):
                if written is None or written.type not in _INDEXED:
                    return written
                written = written.child_by_field_name("value") or written.child_by_field_name(
                    "element"
                )
            return written
        # an elided literal: climb to the literal value holding it
        while owner is not None and owner.type in {"literal_element", "keyed_element"}:
            owner = owner.parent
        value = owner
        depth += 1
    return None


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
                yield Declaration(
                    name, qualified(name), "type", False, spec_lines, span, _exported(name, scope)
                )
    elif node.type == "function_declaration":
        name = _text(node.child_by_field_name("name"))
        if name:
            yield Declaration(
                name, qualified(name), "member", False, lines, where, _exported(name, scope)
            )
    elif node.type == "method_declaration":
        name = _text(node.child_by_field_name("name"))
        receiver = _receiver(node.child_by_field_name("receiver"))
        if name and receiver:
            full = qualified(f"{receiver}.{name}")
            yield Declaration(name, full, "member", True, lines, where, _exported(name, scope))
    elif node.type in {"var_declaration", "const_declaration"}:
        specs = [c for c in node.named_children if c.type in {"var_spec", "const_spec"}]
        grouped = [
            spec
            for group in node.named_children
            if group.type == "var_spec_list"
            for spec in group.named_children
            if spec.type == "var_spec"
        ]
        every = [*specs, *grouped]
        for spec in every:
            # one of a ``var ( … )`` group is located by its own line, a lone one whole
            alone = len(every) == 1 and not grouped
            at = lines if alone else (spec.start_point[0] + 1, spec.end_point[0] + 1)
            span = where if alone else (spec.start_byte, spec.end_byte)
            for child in spec.children_by_field_name("name"):
                name = _text(child)
                if name and name != "_":
                    exported = _exported(name, scope)
                    yield Declaration(name, qualified(name), "member", False, at, span, exported)


def _exported(name: str, folder: str) -> bool:
    """A capitalised name outside an ``internal`` folder is its module's public API."""
    return name[:1].isupper() and "internal" not in folder.split("/")


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


class Condition:
    """A build constraint as a function of a build context (GOOS, GOARCH, tags)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tags: set[str] = set()
        self.gooses: set[str] = set()
        self.arches: set[str] = set()
        self._tokens = [t for t in _TOKEN.findall(text) if t]
        self._position = 0
        try:
            self._tree = self._or() if self._tokens else True
            if self._position != len(self._tokens):
                raise ValueError("trailing tokens")
        except (ValueError, IndexError, RecursionError):
            self._tree = True  # unreadable: taken as always built

    def _or(self) -> object:
        left = self._and()
        while self._peek() == "||":
            self._position += 1
            left = ("or", left, self._and())
        return left

    def _and(self) -> object:
        left = self._not()
        while self._peek() == "&&":
            self._position += 1
            left = ("and", left, self._not())
        return left

    def _not(self) -> object:
        word = self._tokens[self._position]
        self._position += 1
        if word == "!":
            return ("not", self._not())
        if word == "(":
            inner = self._or()
            if self._peek() != ")":
                raise ValueError("unclosed")
            self._position += 1
            return inner
        if word in {")", "||", "&&"}:
            raise ValueError(f"unexpected {word}")
        if word in GOOSES:
            self.gooses.add(word)
        elif word in GOARCHES:
            self.arches.add(word)
        else:
            self.tags.add(word)
        return word

    def _peek(self) -> str | None:
        return self._tokens[self._position] if self._position < len(self._tokens) else None

    def holds(self, goos: str, goarch: str, tags: frozenset[str]) -> bool:
        """Whether the file is built for ``goos``/``goarch`` with ``tags`` set."""
        return bool(_evaluate(self._tree, goos, goarch, tags))

    def by_default(self) -> bool:
        """Whether the file is built in the default build (linux/amd64, cgo, no tags)."""
        return self.holds(_DEFAULT_GOOS, _DEFAULT_GOARCH, _DEFAULT_TAGS)

    def compatible(self, other: Condition) -> bool:
        """Whether one build can include both files."""
        if self._tree is True or other._tree is True:
            return True
        tags = sorted(self.tags | other.tags)
        if len(tags) > MAX_CONSTRAINT_TERMS:
            return True
        gooses = [*sorted(self.gooses | other.gooses), "other-os"]
        arches = [*sorted(self.arches | other.arches), "other-arch"]
        for goos in gooses:
            for goarch in arches:
                for mask in range(1 << len(tags)):
                    chosen = frozenset(t for n, t in enumerate(tags) if mask >> n & 1)
                    if self.holds(goos, goarch, chosen) and other.holds(goos, goarch, chosen):
                        return True
        return False


def _evaluate(tree: object, goos: str, goarch: str, tags: frozenset[str]) -> bool:
    if tree is True:
        return True
    if isinstance(tree, str):
        if tree in GOOSES:
            return tree == goos
        if tree in GOARCHES:
            return tree == goarch
        if tree == "unix":
            return goos in _UNIX
        if tree.startswith("go1"):
            return True
        return tree in tags
    assert isinstance(tree, tuple)
    if tree[0] == "not":
        return not _evaluate(tree[1], goos, goarch, tags)
    left = _evaluate(tree[1], goos, goarch, tags)
    if tree[0] == "and":
        return left and _evaluate(tree[2], goos, goarch, tags)
    return left or _evaluate(tree[2], goos, goarch, tags)


@dataclass(frozen=True, slots=True)
class _Package:
    """The files of one directory and the top-level names each declares."""

    files: tuple[str, ...]
    declared: Mapping[str, tuple[str, ...]]
    name: str
    folder: str

    def symbol(self, name: str) -> str:
        """The qualified name of the package's declaration ``name``."""
        return f"{self.folder}.{name}" if self.folder else name


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
        conditions: dict[str, Condition] = {}
        self._conditions = {
            path: conditions.setdefault(facts.condition, Condition(facts.condition))
            for path, facts in sources.items()
        }
        # a type's methods by the files declaring them: (folder, type) -> {file: count}
        self._methods: dict[tuple[str, str], dict[str, int]] = {}
        for folder, files in folders.items():
            declared: dict[str, list[str]] = {}
            for path in files:
                for declaration in sources[path].declarations:
                    holders = self._declared.setdefault(declaration.qualified_name, [])
                    if path not in holders:
                        holders.append(path)
                    if declaration.nested:
                        receiver = declaration.qualified_name.rsplit(".", 2)[-2]
                        holding = self._methods.setdefault((folder, receiver), {})
                        holding[path] = holding.get(path, 0) + 1
                    if not declaration.nested:
                        owners = declared.setdefault(declaration.simple_name, [])
                        if path not in owners:
                            owners.append(path)
            library = [p for p in files if not p.endswith(_TEST_SUFFIX)]
            name = sources[library[0] if library else files[0]].package
            self._packages[folder] = _Package(
                tuple(files), {k: tuple(v) for k, v in declared.items()}, name, folder
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

    def keys(self, relative: str, facts: SourceFacts) -> LinkKeys | None:
        """Not said yet (a package is spread over its folder's files, build constraints choose
        among them): an edit changing what a file offers links the family whole."""
        return None

    def internal(self, relative: str) -> bool:
        """A package below an ``internal`` folder is importable by its parent's tree only;
        a file the default build leaves out (a build-tag twin) is an alternative of it."""
        condition = self._conditions.get(relative)
        outside = condition is not None and not condition.by_default()
        return outside or "internal" in relative.split("/")[:-1]

    def link(self, relative: str, facts: SourceFacts, whole: bool) -> Linked:
        """The files ``facts`` depends on, with the rule (``package``/``import``) and uses."""
        is_test = relative.endswith(_TEST_SUFFIX)
        found = EdgeSet(relative, _RANKING)

        mine = self._conditions.get(relative, Condition(facts.condition))

        def add(package: _Package, name: str, rule: str, uses: int) -> None:
            owners = [
                owner
                for owner in package.declared.get(name, ())
                if not owner.endswith(_TEST_SUFFIX) or is_test
            ]
            if len(owners) > 1:
                owners = self._built_with(mine, owners, package.symbol(name), found)
            for owner in owners:
                found.add(owner, rule, uses, package.symbol(name))

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
                    for owner in package.files:
                        if not owner.endswith(_TEST_SUFFIX) or is_test:
                            found.add(owner, "import", 0)
            else:
                bound[item.alias or package.name] = package
        own = self._packages.get(posixpath.dirname(relative))
        uses = facts.uses or (1,) * len(facts.references)
        for reference, count in zip(facts.references, uses, strict=True):
            first, _, rest = reference.partition(".")
            if first in bound and rest and first not in facts.local_names:
                if rest[:1].isupper():
                    add(bound[first], rest, "import", count)
                continue
            if first in facts.local_names:
                continue
            if own is not None and own.name == facts.package:
                add(own, first, "package", count)
            if first[:1].isupper():
                for package in dotted:
                    add(package, first, "import", count)
        if not whole and facts.focus:
            # the type's methods declared in the package's other files are part of it
            folder = posixpath.dirname(relative)
            receiver = facts.focus.rsplit(".", 1)[-1]
            for path, count in self._methods.get((folder, receiver), {}).items():
                if path != relative and (is_test or not path.endswith(_TEST_SUFFIX)):
                    found.add(path, "package", count, facts.focus)
        return found.linked()

    def _built_with(
        self, mine: Condition, owners: list[str], name: str, found: EdgeSet
    ) -> list[str]:
        """Of several files declaring one name (build-tag twins), those a build with the
        referring file includes, the default build's first; the others are alternatives."""
        conditions = {owner: self._conditions.get(owner, Condition("")) for owner in owners}
        together = [owner for owner in owners if mine.compatible(conditions[owner])] or owners
        default = [owner for owner in together if conditions[owner].by_default()]
        chosen = default[:1] or together[:1]
        others = tuple(owner for owner in owners if owner not in chosen)
        if others:
            found.alternative(Alternative(name, chosen[0], others, "build constraints"))
        return chosen


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
