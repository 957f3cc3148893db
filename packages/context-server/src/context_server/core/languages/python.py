"""Python: modules named by their path in packages, names resolved through imports only.

A file's module is its path from the topmost directory of its package (folders with an
``__init__.py``), e.g. ``src/shop/models/user.py`` is ``shop.models.user`` when ``shop`` and
``models`` hold one; its classes, functions and values are declared in that module. Python
sees nothing it does not import: ``from m import NAME`` and ``import a.b`` bind names, and a
use resolves through them; relative imports count from the module's package.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

import tree_sitter
import tree_sitter_python

from context_server.core.facts import EdgeSet, FileDependencies, Import, SourceFacts
from context_server.core.languages.base import Linker, SourceLanguage
from context_server.core.languages.collector import CollectorSpec, Rescue, collect, text_of
from context_server.core.languages.names import Bindings, NameLinker, NamePolicy, NameTables

PYTHON = SourceLanguage(
    "python", "Python", (".py", ".pyi"), tree_sitter_python.language, "#", colon_body=True
)
_INIT = frozenset({"__init__.py", "__init__.pyi"})


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
)


class PythonLinker(NameLinker):
    """Python names resolve only through what the module imports."""

    def build_tables(self, sources: Mapping[str, SourceFacts], policy: NamePolicy) -> NameTables:
        """Declarations, and every module by its name."""
        return NameTables(sources, policy, modules=True)

    def edges(self, relative: str, facts: SourceFacts, whole: bool) -> FileDependencies:
        """The modules ``facts`` imports and what its code uses through them."""
        bindings = Bindings(facts.imports)
        found = EdgeSet(relative)
        self.link_imports(found, facts, bindings, whole)
        for reference, count in facts.counted().items():
            segments = reference.split(".")
            if segments[0] in facts.local_names:
                continue
            qualified, rule = self._python(segments, bindings)
            if qualified is not None:
                for owner in self.tables.owners(qualified):
                    found.add(owner, rule, count)
        return FileDependencies(found.edges(), ())

    def _python(self, segments: list[str], bindings: Bindings) -> tuple[str | None, str]:
        tables = self.tables
        outer = segments[0]
        if outer in bindings.names:
            target = bindings.names[outer].split(".")
            if outer == target[0]:
                # ``import a.b`` binds ``a``: the use spells the whole dotted path itself.
                return tables.longest(segments, 1), "import"
            # ``from m import NAME`` where NAME is a value, not a declared class or
            # function: its use is a use of the module that defines it.
            return tables.longest(target + segments[1:], max(1, len(target) - 1)), "import"
        for base in bindings.wildcards:
            prefix = base.split(".") if base else []
            found = tables.longest(prefix + segments, len(prefix) + 1)
            if found is not None:
                return found, "wildcard"
        return None, "import"


class Python:
    """The Python plugin (see :class:`context_server.core.languages.base.Language`)."""

    name = "python"
    dialects = (PYTHON,)
    config_files: tuple[str, ...] = ()

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
        """The facts of one Python file."""
        is_package = path.rsplit("/", 1)[-1] in _INIT
        return collect(dialect, _SPEC, text, module, is_package, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """Modules and their names, resolved through imports."""
        return PythonLinker(sources, NamePolicy())

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
