"""Name resolution across a project: which files a file depends on.

Order for a JVM name: a fully-qualified use, the file's explicit imports, its own package,
its wildcard imports, then a simple name declared at top level exactly once in the project.
An ambiguous simple name is never guessed; it is reported instead. When several files
declare the same qualified name, the first by sorted path wins, every time.

Python names resolve only through what the module imports (Python sees nothing else).
An explicit import whose target is not in the project binds the name to that outside type:
it does not fall through to a project type of the same simple name (the anchor's known
false positive).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from context_server.core.extraction import SourceFacts
from context_server.core.walk import sort_key


@dataclass(frozen=True, slots=True)
class Ambiguity:
    """A simple name that several project types carry, left unresolved."""

    name: str
    candidates: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FileDependencies:
    """The direct dependencies of one file, in order of first reference."""

    files: tuple[str, ...]
    ambiguous: tuple[Ambiguity, ...]


class Resolver:
    """Resolves every source file's references against the project's declarations."""

    def __init__(self, sources: Mapping[str, SourceFacts]) -> None:
        by_name: dict[str, list[str]] = {}
        top_level: dict[str, set[str]] = {}
        for relative in sorted(sources, key=sort_key):
            facts = sources[relative]
            if facts.language == "python" and facts.module:
                by_name.setdefault(facts.module, []).append(relative)
            for declaration in facts.declarations:
                by_name.setdefault(declaration.qualified_name, []).append(relative)
                owner = declaration.qualified_name.rsplit(".", 1)[0]
                prefix = facts.module if facts.language == "python" else facts.package
                is_top = owner == prefix or declaration.qualified_name == declaration.simple_name
                if is_top and facts.language != "python":
                    top_level.setdefault(declaration.simple_name, set()).add(
                        declaration.qualified_name
                    )
        self._by_name = {name: tuple(files) for name, files in by_name.items()}
        self._top_level = top_level
        self._direct: dict[str, FileDependencies] = {}
        for relative in sources:
            self._direct[relative] = self._resolve_file(relative, sources[relative])

    def declared(self, qualified_name: str) -> tuple[str, ...]:
        """Files declaring ``qualified_name`` (a type, or a Python module), by sorted path."""
        return self._by_name.get(qualified_name, ())

    def direct(self, relative: str) -> FileDependencies:
        """The direct dependencies of a source file (empty for a file that is not one)."""
        return self._direct.get(relative, FileDependencies((), ()))

    def dependencies(self, relative: str, depth: int) -> list[tuple[str, int]]:
        """Files within ``depth`` hops, breadth first: nearest first, each once, never the
        start itself; each with the level (1 = direct) it was reached at."""
        if depth < 1:
            raise ValueError(f"depth must be positive but was {depth}")
        visited = {relative}
        found: list[tuple[str, int]] = []
        frontier = deque([relative])
        for level in range(1, depth + 1):
            following: deque[str] = deque()
            for current in frontier:
                for target in self.direct(current).files:
                    if target not in visited:
                        visited.add(target)
                        found.append((target, level))
                        following.append(target)
            if not following:
                break
            frontier = following
        return found

    # resolution ---------------------------------------------------------------------------
    def _resolve_file(self, relative: str, facts: SourceFacts) -> FileDependencies:
        bindings: dict[str, str] = {}
        wildcards: list[str] = []
        found: dict[str, None] = {}
        ambiguous: dict[str, Ambiguity] = {}

        def add(qualified: str | None) -> None:
            if qualified is None:
                return
            owner = self._by_name[qualified][0]
            if owner != relative:
                found.setdefault(owner, None)

        for item in facts.imports:
            if item.wildcard:
                wildcards.append(item.target)
            else:
                bindings[item.bound_name] = item.target
            add(self._longest(item.target.split("."), 1))
        python = facts.language == "python"
        for reference in facts.references:
            segments = reference.split(".")
            if segments[0] in facts.local_names:
                continue
            if python:
                add(self._python(segments, bindings, wildcards))
                continue
            qualified, ambiguity = self._jvm(segments, facts.package, bindings, wildcards)
            add(qualified)
            if ambiguity is not None:
                ambiguous.setdefault(ambiguity.name, ambiguity)
        return FileDependencies(tuple(found), tuple(ambiguous.values()))

    def _longest(self, segments: list[str], minimum: int) -> str | None:
        for size in range(len(segments), minimum - 1, -1):
            name = ".".join(segments[:size])
            if name in self._by_name:
                return name
        return None

    def _python(
        self, segments: list[str], bindings: dict[str, str], wildcards: list[str]
    ) -> str | None:
        outer = segments[0]
        if outer in bindings:
            target = bindings[outer].split(".")
            if outer == target[0]:
                # ``import a.b`` binds ``a``: the use spells the whole dotted path itself.
                return self._longest(segments, 1)
            return self._longest(target + segments[1:], len(target))
        for base in wildcards:
            prefix = base.split(".") if base else []
            found = self._longest(prefix + segments, len(prefix) + 1)
            if found is not None:
                return found
        return None

    def _jvm(
        self,
        segments: list[str],
        package: str,
        bindings: dict[str, str],
        wildcards: list[str],
    ) -> tuple[str | None, Ambiguity | None]:
        outer = segments[0]
        if outer in bindings:
            target = bindings[outer].split(".")
            return self._longest(target + segments[1:], len(target)), None
        if len(segments) > 1 and not outer[:1].isupper():
            return self._longest(segments, 2), None
        prefix = package.split(".") if package else []
        found = self._longest(prefix + segments, len(prefix) + 1)
        if found is not None:
            return found, None
        for base in wildcards:
            base_parts = base.split(".")
            found = self._longest(base_parts + segments, len(base_parts) + 1)
            if found is not None:
                return found, None
        candidates = self._top_level.get(outer, set())
        if len(candidates) == 1:
            return self._longest([*next(iter(candidates)).split("."), *segments[1:]], 1), None
        if len(candidates) > 1:
            files = sorted({self._by_name[c][0] for c in candidates}, key=sort_key)
            return None, Ambiguity(outer, tuple(files))
        return None, None
