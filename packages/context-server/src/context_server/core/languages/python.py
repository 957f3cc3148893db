"""Python: modules named by their path in packages, names resolved through imports only.

A file's module is its path from the topmost directory of its package (folders with an
``__init__.py``), e.g. ``src/shop/models/user.py`` is ``shop.models.user`` when ``shop`` and
``models`` hold one; its classes, functions and values are declared in that module. Python
sees nothing it does not import: ``from m import NAME`` and ``import a.b`` bind names, and a
use resolves through them; relative imports count from the module's package.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import tree_sitter
import tree_sitter_python

from context_server.core.facts import Alternative, EdgeSet, Import, Linked, LinkKeys, SourceFacts
from context_server.core.languages.base import Linker, SourceLanguage
from context_server.core.languages.collector import CollectorSpec, Rescue, collect, text_of
from context_server.core.languages.names import (
    Bindings,
    NameLinker,
    NamePolicy,
    NameTables,
    nearest,
)

PYTHON = SourceLanguage(
    "python", "Python", (".py", ".pyi"), tree_sitter_python.language, "#", colon_body=True
)
_INIT = frozenset({"__init__.py", "__init__.pyi"})
ALIAS = "="
"""The ``name`` of an import standing for a module-level ``Name = dotted.name``."""
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# Folders a project's packages usually sit in (put on the import path by its build).
_SOURCE_FOLDERS = frozenset({"src", "lib", "python", "source"})
MAX_REEXPORT_DEPTH = 32
"""Re-exports followed in a row at most, looking for the module declaring a name."""


def _import(node: tree_sitter.Node, module: str, is_package: bool) -> Iterator[Import]:
    if node.type == "import_statement":
        for child in node.children:
            if child.type == "dotted_name":
                yield Import(text_of(child), text_of(child).split(".")[0])
            elif child.type == "aliased_import":
                target, alias = _alias(child)
                yield Import(target, alias)
        return
    module_node = node.child_by_field_name("module_name")
    base = _module(module_node, module, is_package) if module_node is not None else ""
    for child in node.children:
        if module_node is not None and child.id == module_node.id:
            continue
        if child.type == "wildcard_import":
            yield Import(base, None, True)
        elif child.type == "dotted_name":
            name = text_of(child)
            yield Import(f"{base}.{name}" if base else name, name)
        elif child.type == "aliased_import":
            target, alias = _alias(child)
            yield Import(f"{base}.{target}" if base else target, alias)


def _aliases(root: tree_sitter.Node) -> Iterator[Import]:
    """Module-level assignments of a dotted name to a name: ``Signer = base.Signer``."""
    for child in root.named_children:
        if child.type != "expression_statement" or child.named_child_count != 1:
            continue
        assignment = child.named_children[0]
        left = assignment.child_by_field_name("left")
        right = assignment.child_by_field_name("right")
        if (
            assignment.type == "assignment"
            and left is not None
            and right is not None
            and left.type == "identifier"
            and right.type in {"identifier", "attribute"}
            and _DOTTED_NAME.fullmatch(text_of(right))
        ):
            yield Import(text_of(right), text_of(left), name=ALIAS, exported=True)


def _alias(node: tree_sitter.Node) -> tuple[str, str]:
    target = node.child_by_field_name("name")
    alias = node.child_by_field_name("alias")
    name = text_of(target) if target is not None else ""
    return name, text_of(alias) if alias is not None else name.split(".")[0]


def _module(node: tree_sitter.Node, module: str, is_package: bool) -> str:
    if node.type != "relative_import":
        return text_of(node)
    dots = 0
    rest = ""
    for child in node.children:
        if child.type == "import_prefix":
            dots = len(text_of(child).strip())
        elif child.type == "dotted_name":
            rest = text_of(child)
    # Relative imports count from the module's package: the module itself for an
    # ``__init__``, its parent otherwise.
    parts = module.split(".") if module else []
    package = parts if is_package else parts[:-1]
    base_parts = package[: len(package) - (dots - 1)] if dots > 1 else package
    if dots - 1 > len(package):
        base_parts = []
    base = ".".join(base_parts)
    if rest:
        return f"{base}.{rest}" if base else rest
    return base


_SPEC = CollectorSpec(
    declarations=frozenset({"class_definition"}),
    # A top-level function or value is importable by name.
    members=frozenset({"function_definition", "decorated_definition"}),
    local_scopes=frozenset({"function_definition", "lambda"}),
    chains=frozenset({"attribute"}),
    read_import=_import,
    module_scope=True,
    every_identifier=True,
    rescue=Rescue.NEVER,
    module_imports=_aliases,
)


@dataclass(frozen=True, slots=True)
class _Place:
    """A declaration (``name``) of the module in ``file``, or (``name`` None) the module."""

    file: str
    name: str | None


class PythonLinker(NameLinker):
    """Python names resolve only through what the module imports, to the file declaring
    them (followed through the re-exports of a package's ``__init__``)."""

    def __init__(
        self,
        sources: Mapping[str, SourceFacts],
        policy: NamePolicy,
        configs: Mapping[str, bytes] | None = None,
    ) -> None:
        super().__init__(sources, policy)
        self._sources = sources
        self._names = {
            path: frozenset(d.simple_name for d in f.declarations if not d.nested)
            for path, f in sources.items()
        }
        self._modules: dict[str, list[str]] = {}
        roots = _import_roots(sources, configs or {})
        for path, facts in sources.items():
            for name in (facts.module, *_namespace_names(path, roots)):
                if name:
                    files = self._modules.setdefault(name, [])
                    if path not in files:
                        files.append(path)
        self._exports: dict[str, dict[str, Import]] = {}
        self._stars: dict[str, list[str]] = {}
        self._aliases: dict[str, dict[str, list[str]]] = {}
        self._bindings: dict[str, Bindings] = {}
        for path, facts in sources.items():
            exports: dict[str, Import] = {}
            for item in facts.imports:
                if item.name == ALIAS:
                    self._aliases.setdefault(path, {})[item.bound_name] = item.target.split(".")
                elif item.wildcard:
                    self._stars.setdefault(path, []).append(item.target)
                elif "@" not in item.bound_name:
                    exports.setdefault(item.bound_name, item)
            self._exports[path] = exports

    def build_tables(self, sources: Mapping[str, SourceFacts], policy: NamePolicy) -> NameTables:
        """Declarations, and every module by its name."""
        return NameTables(sources, policy, modules=True)

    def keys(self, relative: str, facts: SourceFacts) -> LinkKeys | None:
        """Not said yet (a package's ``__init__`` re-exports what its modules declare, star imports
        chain): an edit changing what a file offers links the family whole."""
        return None

    def internal(self, relative: str) -> bool:
        """A private module (``_compat.py``) whose package's ``__init__`` re-exports
        nothing of it."""
        folder, _, name = relative.rpartition("/")
        stem = name.rsplit(".", 1)[0]
        facts = self._sources.get(relative)
        if facts is None or not stem.startswith("_") or stem.startswith("__"):
            return False
        init = next(
            (
                self._sources[f"{folder}/{n}" if folder else n]
                for n in sorted(_INIT)
                if (f"{folder}/{n}" if folder else n) in self._sources
            ),
            None,
        )
        if init is None:
            return True
        module = facts.module
        return not any(
            item.target == module or item.target.startswith(module + ".") for item in init.imports
        )

    def declared(self, name: str) -> tuple[str, ...]:
        """Files declaring ``name`` (a class, function or value, or a module by any name it
        is imported by)."""
        found = list(self.tables.by_name.get(name, ()))
        found.extend(path for path in self._modules.get(name, ()) if path not in found)
        module, _, last = name.rpartition(".")
        for path in self._modules.get(module, ()) if not found else ():
            if last in self._names.get(path, ()):
                found.append(path)  # a declaration of a module named by another import root
        return tuple(found)

    def place(self, importer: str, segments: list[str], search: _Search) -> _Place | None:
        """The file declaring what the dotted name ``segments`` means: its longest prefix
        naming a module (the nearest to ``importer`` of several), then the declaration the
        rest names there, followed through the module's own imports (re-exports)."""
        for size in range(len(segments), 0, -1):
            files = self._modules.get(".".join(segments[:size]))
            if not files:
                continue
            file = nearest(importer, files)
            if len(files) > 1:
                search.alternatives.append(
                    Alternative(
                        ".".join(segments[:size]),
                        file,
                        tuple(f for f in files if f != file),
                        "nearest module",
                    )
                )
            rest = segments[size:]
            if not rest:
                return _Place(file, None)
            return self._member(file, rest, search) or _Place(file, None)
        return None

    def _member(self, file: str, rest: list[str], search: _Search) -> _Place | None:
        """The file declaring ``rest[0]`` as the module in ``file`` sees it: declared there,
        imported there (a re-export), or from a module it star-imports."""
        name = rest[0]
        if name in self._names.get(file, ()):
            return _Place(file, name)
        key = (file, name)
        if key in search.chain:
            cycle = " -> ".join(f"{path}:{alias}" for path, alias in [*search.chain, key])
            search.notes.append(f"re-export cycle {cycle} (followed once)")
            return None
        if len(search.chain) >= MAX_REEXPORT_DEPTH:
            search.notes.append(
                f"re-exports of `{name}` followed {MAX_REEXPORT_DEPTH} deep; the rest not searched"
            )
            return None
        search.chain.append(key)
        try:
            alias = self._aliases.get(file, {}).get(name)
            if alias is not None:
                # ``Signer = base.Signer``: what the module's own name there means
                meaning = self._python(file, [*alias, *rest[1:]], self._bound(file), search)[0]
                if meaning is not None:
                    return meaning
            item = self._exports.get(file, {}).get(name)
            if item is not None:
                target = item.target.split(".")
                if item.alias is None and len(target) > 1 and target[0] == name:
                    return self.place(file, [name, *rest[1:]], search)  # ``import a.b``
                return self.place(file, [*target, *rest[1:]], search)
            for base in self._stars.get(file, ()):
                found = self.place(file, [*base.split("."), *rest], search)
                if found is not None and found.name is not None:
                    return found
        finally:
            search.chain.pop()
        return None

    def _bound(self, path: str) -> Bindings:
        """What the module in ``path`` binds by its imports (aliases apart)."""
        bindings = self._bindings.get(path)
        if bindings is None:
            facts = self._sources.get(path)
            imports = facts.imports if facts is not None else ()
            bindings = self._bindings[path] = Bindings(
                tuple(item for item in imports if item.name != ALIAS)
            )
        return bindings

    def link(self, relative: str, facts: SourceFacts, whole: bool) -> Linked:
        """The files declaring what ``facts`` uses through its imports (each with how often),
        and the modules it imports without using anything through them (import only)."""
        bindings = Bindings(tuple(item for item in facts.imports if item.name != ALIAS))
        found = EdgeSet(relative)
        search = _Search()
        used: set[str] = set()
        for reference, count in facts.counted().items():
            segments = reference.split(".")
            if segments[0] in facts.local_names:
                continue
            place, rule, through = self._python(relative, segments, bindings, search)
            if place is not None:
                found.add(place.file, rule, count, self._symbol(place))
                used.add(through)
        if whole:
            for item in facts.imports:
                if (
                    item.name == ALIAS
                    or (item.target if item.wildcard else item.bound_name) in used
                ):
                    continue
                place = self.place(relative, item.target.split("."), search)
                if place is not None:
                    found.add(place.file, "import", 0, self._symbol(place))
        for alternative in search.alternatives:
            found.alternative(alternative)
        for note in search.notes:
            found.note(note)
        return found.linked()

    def _symbol(self, place: _Place) -> str | None:
        facts = self._sources.get(place.file)
        if facts is None:
            return None
        if place.name is None:
            return facts.module or None
        return f"{facts.module}.{place.name}" if facts.module else place.name

    def _python(
        self, relative: str, segments: list[str], bindings: Bindings, search: _Search
    ) -> tuple[_Place | None, str, str]:
        """What a reference means, the rule, and the import it went through (its bound
        name, or a star import's target)."""
        outer = segments[0]
        alias = self._aliases.get(relative, {}).get(outer)
        if (
            alias is not None
            and outer not in bindings.names
            and len(search.chain) < MAX_REEXPORT_DEPTH
        ):
            key = (relative, f"={outer}")
            if key not in search.chain:
                search.chain.append(key)
                try:
                    found = self._python(relative, [*alias, *segments[1:]], bindings, search)
                finally:
                    search.chain.pop()
                return found[0], found[1], outer
        if outer in bindings.names:
            target = bindings.names[outer].split(".")
            if outer.split("@", 1)[0] == target[0] and len(target) > 1:
                # ``import a.b`` binds ``a``: the use spells the whole dotted path itself.
                path = [target[0], *segments[1:]]
                return self.place(relative, path, search), "import", outer
            return self.place(relative, [*target, *segments[1:]], search), "import", outer
        for base in bindings.wildcards:
            prefix = base.split(".") if base else []
            through = self.place(relative, [*prefix, *segments], search)
            if through is not None and through.name is not None:
                return through, "wildcard", base
        return None, "import", outer


@dataclass(slots=True)
class _Search:
    """One file's look-ups: the (file, name) chain followed, and what to tell about it."""

    chain: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    alternatives: list[Alternative] = field(default_factory=list)


def _import_roots(sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> set[str]:
    """Folders a Python project puts on the import path: the project root, ``src``-like
    folders and those holding a ``pyproject.toml``, ``setup.cfg`` or ``setup.py``."""
    roots = {""}
    for path in [*sources, *configs]:
        folder, _, name = path.rpartition("/")
        if name in {"setup.py", "pyproject.toml", "setup.cfg"}:
            roots.add(folder)
        parts = folder.split("/") if folder else []
        for size in range(1, len(parts) + 1):
            if parts[size - 1] in _SOURCE_FOLDERS:
                roots.add("/".join(parts[:size]))
    return roots


def _namespace_names(path: str, roots: set[str]) -> list[str]:
    """The module names ``path`` has below each import root holding it through namespace
    packages (folders without ``__init__``) as well as regular ones."""
    folder, _, file_name = path.rpartition("/")
    stem = file_name.rsplit(".", 1)[0]
    names = []
    for root in roots:
        if root and not (folder == root or folder.startswith(root + "/")):
            continue
        inner = folder[len(root) :].strip("/") if root else folder
        parts = inner.split("/") if inner else []
        if stem != "__init__":
            parts.append(stem)
        if parts and all(part.isidentifier() for part in parts):
            names.append(".".join(parts))
    return names


class Python:
    """The Python plugin (see :class:`context_server.core.languages.base.Language`)."""

    name = "python"
    dialects = (PYTHON,)
    config_files = ("pyproject.toml", "setup.cfg")

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """The dotted module of each file: its path from the topmost directory of its
        package."""
        packages = frozenset(
            path.rsplit("/", 1)[0] if "/" in path else ""
            for path in paths
            if path.rsplit("/", 1)[-1] in _INIT
        )
        return {path: _module_name(path, packages) for path in paths}

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one Python file; a module-level ``Name = other.Name`` is an import
        named ``=`` (an alias another module can import, as a re-export)."""
        is_package = path.rsplit("/", 1)[-1] in _INIT
        return collect(dialect, _SPEC, text, module, is_package, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """Modules and their names, resolved through imports."""
        return PythonLinker(sources, NamePolicy(), configs)

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """A module is used by its own name too (``import utils`` then ``utils.x``)."""
        return (facts.module.rsplit(".", 1)[-1],) if facts.module else ()


def _module_name(relative: str, packages: frozenset[str]) -> str:
    """The dotted module name: the file's path from the topmost directory of its package."""
    parts = relative.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    directories = parts[:-1]
    names = [] if stem == "__init__" else [stem]
    while directories and "/".join(directories) in packages:
        names.insert(0, directories[-1])
        directories = directories[:-1]
    return ".".join(names) if names else (directories[-1] if directories else stem)


PYTHON_LANGUAGE = Python()
