"""The JVM languages: Java, Kotlin and Scala, one family resolving across each other.

A file's package comes from its package clause; its names resolve by the rules of
:mod:`context_server.core.languages.names`, with each dialect's implicit imports
(:mod:`context_server.core.languages.implicit`) and, last, a simple name declared at top
level exactly once in the project.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

import tree_sitter
import tree_sitter_java
import tree_sitter_kotlin
import tree_sitter_scala

from context_server.core.facts import Import, SourceFacts
from context_server.core.languages.base import Linker, SourceLanguage
from context_server.core.languages.collector import CollectorSpec, Rescue, collect, text_of
from context_server.core.languages.implicit import JAVA_LANG, KOTLIN_DEFAULTS, SCALA_DEFAULTS
from context_server.core.languages.names import NameLinker, NamePolicy

JAVA = SourceLanguage("java", "Java", (".java",), tree_sitter_java.language)
KOTLIN = SourceLanguage("kotlin", "Kotlin", (".kt", ".kts"), tree_sitter_kotlin.language)
SCALA = SourceLanguage("scala", "Scala", (".scala", ".sc"), tree_sitter_scala.language)

_JAVA_IMPORT = re.compile(r"import\s+(?:static\s+)?([\w$]+(?:\s*\.\s*[\w$]+)*)(\s*\.\s*\*)?\s*;?")
_KOTLIN_IMPORT = re.compile(r"import\s+([\w.`]+?)(\.\*)?(?:\s+as\s+([\w`]+))?\s*;?\s*$")


def _java_import(node: tree_sitter.Node, module: str, is_package: bool) -> Iterator[Import]:
    text = text_of(node)
    simple = _JAVA_IMPORT.fullmatch(text) if "/" not in text else None
    if simple is not None:
        # The common case without comments inside the statement: no child walk needed.
        target = "".join(simple.group(1).split())
        yield Import(target, None, simple.group(2) is not None)
        return
    target = ""
    wildcard = False
    for child in node.children:
        if child.type in {"scoped_identifier", "identifier"}:
            target = "".join(text_of(child).split())
        elif child.type == "asterisk":
            wildcard = True
    if target:
        yield Import(target, None, wildcard)


def _kotlin_import(node: tree_sitter.Node, module: str, is_package: bool) -> Iterator[Import]:
    text = " ".join(
        text_of(c) for c in node.children if "comment" not in c.type and c.type != "import"
    )
    match = _KOTLIN_IMPORT.match("import " + text.replace(" . ", ".").replace(" .", "."))
    if match:
        target = match.group(1).replace("`", "")
        alias = match.group(3).replace("`", "") if match.group(3) else None
        yield Import(target, alias, bool(match.group(2)))


def _scala_import(node: tree_sitter.Node, module: str, is_package: bool) -> Iterator[Import]:
    path: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == "identifier":
            path.append(text_of(child))
        elif kind == "," and path:
            yield Import(".".join(path))
            path = []
        elif kind in {"namespace_wildcard", "wildcard"}:
            yield Import(".".join(path), None, True)
            path = []
        elif kind == "namespace_selectors":
            yield from _scala_selectors(".".join(path), child)
            path = []
        elif kind in {"as_renamed_identifier", "arrow_renamed_identifier"}:
            yield from _scala_renamed(".".join(path), child)
            path = []
    if path:
        yield Import(".".join(path))


def _scala_selectors(base: str, node: tree_sitter.Node) -> Iterator[Import]:
    for child in node.children:
        if child.type == "identifier":
            yield Import(f"{base}.{text_of(child)}")
        elif child.type in {"namespace_wildcard", "wildcard"}:
            yield Import(base, None, True)
        elif child.type in {"as_renamed_identifier", "arrow_renamed_identifier"}:
            yield from _scala_renamed(base, child)


def _scala_renamed(base: str, node: tree_sitter.Node) -> Iterator[Import]:
    names = [text_of(c) for c in node.children if c.type == "identifier"]
    if len(names) == 2 and names[1] != "_":
        yield Import(f"{base}.{names[0]}" if base else names[0], names[1])
    elif len(names) >= 1:
        # `Name => _` hides a name: it still names a project type the file mentions.
        yield Import(f"{base}.{names[0]}" if base else names[0])


_SPECS = {
    JAVA.name: CollectorSpec(
        declarations=frozenset(
            {
                "class_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
                "annotation_type_declaration",
            }
        ),
        members=frozenset(),
        local_scopes=frozenset(
            {
                "method_declaration",
                "constructor_declaration",
                "compact_constructor_declaration",
                "lambda_expression",
                "block",
                "object_creation_expression",
            }
        ),
        chains=frozenset({"scoped_type_identifier", "scoped_identifier", "field_access"}),
        read_import=_java_import,
    ),
    KOTLIN.name: CollectorSpec(
        declarations=frozenset({"class_declaration", "object_declaration", "type_alias"}),
        # Top-level functions and values another file can import by name
        # (``import okhttp3.internal.closeQuietly``).
        members=frozenset({"function_declaration", "property_declaration"}),
        local_scopes=frozenset(
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
        chains=frozenset({"navigation_expression", "qualified_identifier", "user_type"}),
        read_import=_kotlin_import,
        # The Kotlin grammar misreads some valid declarations without reporting an error.
        rescue=Rescue.ALWAYS,
        # Kotlin names some declarations through a child that is not a "name" field.
        naming_parents=frozenset(
            {
                "variable_declaration",
                "class_parameter",
                "enum_entry",
                "parameter",
                "type_alias",
                "label",
            }
        ),
    ),
    SCALA.name: CollectorSpec(
        declarations=frozenset(
            {
                "class_definition",
                "object_definition",
                "trait_definition",
                "enum_definition",
                "package_object",
            }
        ),
        # Scala 3's top-level ``def``/``val``.
        members=frozenset({"function_definition", "val_definition", "var_definition"}),
        local_scopes=frozenset(
            {"function_definition", "block", "lambda_expression", "instance_expression"}
        ),
        chains=frozenset({"stable_type_identifier", "stable_identifier", "field_expression"}),
        read_import=_scala_import,
        parameter_lists=True,
    ),
}
_POLICY = NamePolicy(
    implicit={
        JAVA.name: JAVA_LANG,
        KOTLIN.name: KOTLIN_DEFAULTS | JAVA_LANG,
        SCALA.name: SCALA_DEFAULTS | JAVA_LANG,
    },
    guessing=True,
)


class Jvm:
    """The JVM family plugin (see :class:`context_server.core.languages.base.Language`)."""

    name = "jvm"
    dialects = (JAVA, KOTLIN, SCALA)
    config_files: tuple[str, ...] = ()

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """JVM files are named by their package clause, not by their path."""
        return dict.fromkeys(paths, "")

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one Java, Kotlin or Scala file."""
        return collect(dialect, _SPECS[dialect.name], text, module, False, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """Names resolved across the three dialects by the JVM rules."""
        return NameLinker(sources, _POLICY)

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """Users name a JVM file's types only."""
        return ()


JVM = Jvm()
