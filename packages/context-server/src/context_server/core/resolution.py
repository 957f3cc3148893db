"""Name resolution across a project: which files a file depends on, and by which rule.

Order for a JVM name: a fully-qualified use, the file's explicit imports, its own package,
its wildcard imports, the language's implicit imports (``java.lang.*``, Kotlin's and Scala's
defaults: a platform type, never a project file), then a simple name declared at top level
exactly once in the project. An ambiguous simple name is never guessed; it is reported
instead. When several files declare the same qualified type name, the first by sorted path
wins, every time; an imported top-level function or value links every file declaring it
(Kotlin overloads for different receivers live in different files).

Python names resolve only through what the module imports (Python sees nothing else).
An explicit import whose target is not in the project binds the name to that outside type:
it does not fall through to a project type of the same simple name (the anchor's known
false positive). A dotted name whose first segment is bound outside the project never
resolves by a later segment.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from context_server.core.extraction import SourceFacts
from context_server.core.implicit import IMPLICIT_NAMES
from context_server.core.lang_go import GoProject
from context_server.core.lang_rust import RustProject
from context_server.core.lang_script import SCRIPT_LANGUAGES, ScriptProject
from context_server.core.walk import sort_key

RULES: tuple[str, ...] = ("qualified", "import", "package", "wildcard", "simple-name")
"""How an edge was found, strongest first; ``simple-name`` is the guess worth checking."""
_STRENGTH = {rule: rank for rank, rule in enumerate(RULES)}
# The languages whose unresolved simple names may be guessed (C# sees only its namespaces
# and usings; Python only its imports).
_GUESSING = frozenset({"java", "kotlin", "scala"})
# A type declared in several files of these is one type (C# partial classes): every file
# declaring it is linked, not the first by path.
_SPREAD_TYPES = frozenset({"csharp"})
# Namespaces capitalised like types: a dotted name may be fully qualified whatever its case.
_CAPITALISED_NAMESPACES = frozenset({"csharp"})


@dataclass(frozen=True, slots=True)
class Ambiguity:
    """A simple name that several project types carry, left unresolved."""

    name: str
    candidates: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Edge:
    """One dependency of a file: the file reached, the strongest rule that reached it, and
    how often the code uses it (0: named only by an import, e.g. for documentation)."""

    target: str
    rule: str
    uses: int


@dataclass(frozen=True, slots=True)
class FileDependencies:
    """The direct dependencies of one file, in order of first reference.

    ``shadowed`` lists names the file uses as implicitly imported platform types although
    a project type of the same simple name exists (kept apart, not linked).
    """

    edges: tuple[Edge, ...]
    ambiguous: tuple[Ambiguity, ...]
    shadowed: tuple[str, ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        """The dependency files, in order of first reference."""
        return tuple(edge.target for edge in self.edges)


class Resolver:
    """Resolves every source file's references against the project's declarations."""

    def __init__(
        self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes] | None = None
    ) -> None:
        """Index the declarations of ``sources``; ``configs`` holds the project's module
        resolution settings by root-relative path (``tsconfig.json``…)."""
        by_name: dict[str, list[str]] = {}
        types: dict[str, list[str]] = {}
        members: dict[str, list[str]] = {}
        top_level: dict[str, set[str]] = {}
        nested: dict[str, set[str]] = {}
        packages: set[str] = set()
        spread: set[str] = set()
        for relative in sorted(sources, key=sort_key):
            facts = sources[relative]
            packages.add(facts.package)
            if facts.language == "python" and facts.module:
                by_name.setdefault(facts.module, []).append(relative)
                types.setdefault(facts.module, []).append(relative)
            for declaration in facts.declarations:
                qualified = declaration.qualified_name
                for table in (by_name, members if declaration.kind == "member" else types):
                    files = table.setdefault(qualified, [])
                    if relative not in files:
                        files.append(relative)
                if declaration.kind == "member":
                    continue
                if facts.language in _SPREAD_TYPES:
                    spread.add(qualified)
                if facts.language not in _GUESSING:
                    continue
                if declaration.nested:
                    nested.setdefault(declaration.simple_name, set()).add(relative)
                else:
                    top_level.setdefault(declaration.simple_name, set()).add(qualified)
        self._by_name = {name: tuple(files) for name, files in by_name.items()}
        # A Kotlin factory function may share its class's qualified name: the two are apart.
        self._types = {name: tuple(files) for name, files in types.items()}
        self._members = {name: tuple(files) for name, files in members.items()}
        self._top_level = top_level
        self._nested = nested
        self._packages = frozenset(packages)
        self._spread = frozenset(spread)
        # Languages resolving by module path rather than by JVM/Python names.
        scripts = ScriptProject(
            frozenset(
                path for path, facts in sources.items() if facts.language in SCRIPT_LANGUAGES
            ),
            configs or {},
        )
        go = GoProject({p: f for p, f in sources.items() if f.language == "go"}, configs or {})
        rust = RustProject(
            frozenset(path for path, facts in sources.items() if facts.language == "rust"),
            configs or {},
        )
        self._linkers: dict[str, ScriptProject | GoProject | RustProject] = {
            **dict.fromkeys(SCRIPT_LANGUAGES, scripts),
            "go": go,
            "rust": rust,
        }
        self._direct: dict[str, FileDependencies] = {}
        for relative in sources:
            self._direct[relative] = self.resolve(relative, sources[relative])

    def declared(self, qualified_name: str) -> tuple[str, ...]:
        """Files declaring ``qualified_name`` (a type, or a Python module), by sorted path."""
        return self._by_name.get(qualified_name, ())

    def direct(self, relative: str) -> FileDependencies:
        """The direct dependencies of a source file (empty for a file that is not one)."""
        return self._direct.get(relative, FileDependencies((), ()))

    def dependencies(self, relative: str, depth: int) -> list[tuple[str, int]]:
        """Files within ``depth`` hops, breadth first: nearest first, each once, never the
        start itself; each with the level (1 = direct) it was reached at."""
        return [(edge.target, level) for edge, level in self.reach(relative, depth)]

    def reach(
        self, relative: str, depth: int, first: FileDependencies | None = None
    ) -> list[tuple[Edge, int]]:
        """Like :meth:`dependencies`, with the edge that first reached each file.

        ``first`` replaces the start's own direct dependencies (e.g. those of one
        declaration of it rather than of the whole file).
        """
        if depth < 1:
            raise ValueError(f"depth must be positive but was {depth}")
        visited = {relative}
        found: list[tuple[Edge, int]] = []
        frontier = deque([relative])
        for level in range(1, depth + 1):
            following: deque[str] = deque()
            for current in frontier:
                direct = first if first is not None and current == relative else None
                for edge in (direct or self.direct(current)).edges:
                    if edge.target not in visited:
                        visited.add(edge.target)
                        found.append((edge, level))
                        following.append(edge.target)
            if not following:
                break
            frontier = following
        return found

    # resolution ---------------------------------------------------------------------------
    def resolve(self, relative: str, facts: SourceFacts, whole: bool = True) -> FileDependencies:
        """The dependencies of ``facts``: the file at ``relative`` or, with ``whole`` false,
        one declaration of it (its imports then only bind names; what it uses counts)."""
        linker = self._linkers.get(facts.language)
        if linker is not None:
            linked = linker.edges(relative, facts, whole)
            return FileDependencies(tuple(Edge(*edge) for edge in linked), ())
        bindings: dict[str, str] = {}
        wildcards: list[str] = []
        found: dict[str, tuple[str, int]] = {}
        ambiguous: dict[str, Ambiguity] = {}
        shadowed: dict[str, None] = {}

        def add(qualified: str | None, rule: str, uses: int, members: bool = True) -> None:
            if qualified is None:
                return
            # A type: its first file (by path). Otherwise every file declaring a function or
            # value of that name (overloads for different receivers live in different files).
            # A Kotlin factory function named like its class is taken to mean the class.
            owners = self._types.get(qualified, ())
            if qualified not in self._spread:
                owners = owners[:1]
            if members and not owners:
                owners = self._members.get(qualified, ())
            for owner in owners:
                if owner == relative:
                    continue
                known = found.get(owner)
                if known is None:
                    found[owner] = (rule, uses)
                else:
                    best = rule if _STRENGTH[rule] < _STRENGTH[known[0]] else known[0]
                    found[owner] = (best, known[1] + uses)

        for item in facts.imports:
            if item.wildcard:
                wildcards.append(item.target)
            else:
                bindings[item.bound_name] = item.target
            # A type import counts as used once code names it; a function, value or
            # wildcard import is taken as used (lower-case uses are not collected).
            assumed = 0 if not item.wildcard and item.bound_name[:1].isupper() else 1
            if whole:
                add(self._longest(item.target.split("."), 1), "import", assumed)
        if whole:
            # The other parts of a type spread over several files (a C# partial class).
            for declaration in facts.declarations:
                if declaration.qualified_name in self._spread:
                    add(declaration.qualified_name, "package", 1, members=False)
        python = facts.language == "python"
        implicit = IMPLICIT_NAMES[facts.language]
        # A wildcard import from outside the project may supply any unresolved simple name.
        outside_wildcard = any(
            base not in self._packages and base not in self._types for base in wildcards
        )
        guesses: list[tuple[str, int]] = []
        uses = facts.uses or (1,) * len(facts.references)
        for reference, count in zip(facts.references, uses, strict=True):
            segments = reference.split(".")
            if segments[0] in facts.local_names:
                continue
            if python:
                qualified, rule = self._python(segments, bindings, wildcards)
                add(qualified, rule, count)
                continue
            qualified, rule = self._jvm(segments, facts.package, bindings, wildcards, implicit)
            if rule == "implicit":
                if segments[0] in self._top_level:
                    shadowed.setdefault(segments[0], None)
                continue
            if (
                rule == "simple-name"
                and len(segments) > 1
                and facts.language in _CAPITALISED_NAMESPACES
            ):
                # C# namespaces are capitalised like types: ``A.Widget`` is fully qualified
                # once no namespace the file sees holds an ``A``.
                qualified = self._longest(segments, 2, False)
                rule = "qualified" if qualified is not None else rule
            if rule == "simple-name":
                if not outside_wildcard and facts.language in _GUESSING:
                    guesses.append((reference, count))
                continue
            add(qualified, rule, count, members=False)
        # Last, once every certain edge is known: a name nested in a type the file already
        # depends on (or, for a file whose types extend others, anywhere) is most likely
        # inherited (``CronField.Type`` used as ``Type`` in a subclass), not the unrelated
        # top-level type of that name; and a type extending one from outside the project
        # may inherit any name from it, so then nothing is guessed.
        if guesses and self._extends_outside(facts, bindings, wildcards, implicit):
            guesses = []
        for reference, count in guesses:
            segments = reference.split(".")
            nested_in = self._nested.get(segments[0], set())
            if nested_in and (facts.supertypes or nested_in & (found.keys() | {relative})):
                continue
            qualified, ambiguity = self._guess(segments)
            add(qualified, "simple-name", count, members=False)
            if ambiguity is not None:
                ambiguous.setdefault(ambiguity.name, ambiguity)
        edges = tuple(Edge(owner, rule, count) for owner, (rule, count) in found.items())
        return FileDependencies(edges, tuple(ambiguous.values()), tuple(shadowed))

    def _longest(self, segments: list[str], minimum: int, members: bool = True) -> str | None:
        """The longest declared prefix of ``segments`` (at least ``minimum`` long); a
        top-level function or value only with ``members`` (a type reference never means one)."""
        for size in range(len(segments), minimum - 1, -1):
            name = ".".join(segments[:size])
            if name in self._types or (members and name in self._members):
                return name
        return None

    def _python(
        self, segments: list[str], bindings: dict[str, str], wildcards: list[str]
    ) -> tuple[str | None, str]:
        outer = segments[0]
        if outer in bindings:
            target = bindings[outer].split(".")
            if outer == target[0]:
                # ``import a.b`` binds ``a``: the use spells the whole dotted path itself.
                return self._longest(segments, 1), "import"
            # ``from m import NAME`` where NAME is a value, not a declared class or
            # function: its use is a use of the module that defines it.
            return self._longest(target + segments[1:], max(1, len(target) - 1)), "import"
        for base in wildcards:
            prefix = base.split(".") if base else []
            found = self._longest(prefix + segments, len(prefix) + 1)
            if found is not None:
                return found, "wildcard"
        return None, "import"

    def _jvm(
        self,
        segments: list[str],
        package: str,
        bindings: dict[str, str],
        wildcards: list[str],
        implicit: frozenset[str],
    ) -> tuple[str | None, str]:
        """The qualified name a JVM reference means and the rule that says so.

        ``implicit`` means a platform type; ``simple-name`` means nothing certain was found
        (the caller may still guess, see :meth:`_guess`).
        """
        outer = segments[0]
        if outer in bindings:
            target = bindings[outer].split(".")
            return self._longest(target + segments[1:], len(target), False), "import"
        if len(segments) > 1 and not outer[:1].isupper():
            return self._longest(segments, 2, False), "qualified"
        prefix = package.split(".") if package else []
        found = self._longest(prefix + segments, len(prefix) + 1, False)
        if found is not None:
            return found, "package"
        for base in wildcards:
            base_parts = base.split(".")
            found = self._longest(base_parts + segments, len(base_parts) + 1, False)
            if found is not None:
                return found, "wildcard"
        if outer in implicit:
            return None, "implicit"
        return None, "simple-name"

    def _extends_outside(
        self,
        facts: SourceFacts,
        bindings: dict[str, str],
        wildcards: list[str],
        implicit: frozenset[str],
    ) -> bool:
        """Whether a type of the file extends or implements a type outside the project."""
        for name in facts.supertypes:
            segments = name.split(".")
            if segments[0] in facts.local_names:
                continue
            qualified, rule = self._jvm(segments, facts.package, bindings, wildcards, implicit)
            if qualified is None and rule != "simple-name":
                return True
            if rule == "simple-name" and self._guess(segments)[0] is None:
                return True
        return False

    def _guess(self, segments: list[str]) -> tuple[str | None, Ambiguity | None]:
        """The last resort: a simple name declared at top level exactly once."""
        candidates = self._top_level.get(segments[0], set())
        if len(candidates) == 1:
            qualified = self._longest([*next(iter(candidates)).split("."), *segments[1:]], 1, False)
            return qualified, None
        if len(candidates) > 1:
            files = sorted({self._types[c][0] for c in candidates}, key=sort_key)
            return None, Ambiguity(segments[0], tuple(files))
        return None, None
