"""What the index knows of source files and of their dependencies, language-neutral.

Every language plugin (:mod:`context_server.core.languages`) extracts :class:`SourceFacts`
from one file and links them into :class:`FileDependencies`; the rest of the core reads only
these shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

RULES: tuple[str, ...] = ("qualified", "import", "package", "wildcard", "simple-name")
"""How an edge was found, strongest first; ``simple-name`` is the guess worth checking."""
STRENGTH = {rule: rank for rank, rule in enumerate(RULES)}
"""The rank of each rule (0 is the strongest)."""
_UNRANKED = len(RULES)


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

    def counted(self) -> dict[str, int]:
        """Each reference with how often the code uses it."""
        return dict(zip(self.references, self.uses or (1,) * len(self.references), strict=True))


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


NO_DEPENDENCIES = FileDependencies((), ())
"""The dependencies of a file that has none (or is no source file)."""


class EdgeSet:
    """Edges being collected for one file: each target once, with its strongest rule and
    the sum of its uses, in order of first addition; never the file itself.

    ``ranking`` orders the rules (lower is stronger; :data:`STRENGTH` unless a language
    ranks its own); a rule it does not rank never replaces the one recorded first.
    """

    def __init__(self, owner: str, ranking: Mapping[str, int] = STRENGTH) -> None:
        self._owner = owner
        self._ranking = ranking
        self._found: dict[str, tuple[str, int]] = {}

    def add(self, target: str | None, rule: str, uses: int) -> None:
        """Record that the file reaches ``target`` by ``rule``, used ``uses`` times."""
        if target is None or target == self._owner:
            return
        known = self._found.get(target)
        if known is None:
            self._found[target] = (rule, uses)
        else:
            stronger = self._ranking.get(rule, _UNRANKED) < self._ranking.get(known[0], _UNRANKED)
            best = rule if stronger else known[0]
            self._found[target] = (best, known[1] + uses)

    def __contains__(self, target: object) -> bool:
        return target in self._found

    def targets(self) -> set[str]:
        """The files reached so far."""
        return set(self._found)

    def edges(self) -> tuple[Edge, ...]:
        """The collected edges, in order of first addition."""
        return tuple(Edge(target, rule, uses) for target, (rule, uses) in self._found.items())
