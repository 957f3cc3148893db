"""What the index knows of source files and of their dependencies, language-neutral.

Every language plugin (:mod:`context_server.core.languages`) extracts :class:`SourceFacts`
from one file and links them into :class:`FileDependencies`; the rest of the core reads only
these shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

RULES: tuple[str, ...] = ("qualified", "import", "package", "wildcard", "simple-name")
"""How an edge was found, strongest first; ``simple-name`` is the guess worth checking."""
STRENGTH = {rule: rank for rank, rule in enumerate(RULES)}
"""The rank of each rule (0 is the strongest)."""
_UNRANKED = len(RULES)


@dataclass(frozen=True, slots=True)
class Import:
    """One imported name: ``target`` is dotted (or, for path-named modules, the specifier as
    written); ``alias`` the name it binds, if renamed; ``wildcard`` for everything of the
    target (or a namespace bound to ``alias``). ``name`` is the name taken from the target
    when the target does not spell it (an ES ``import { a as b }``: ``a``); ``exported``
    marks a re-export, which the file's own users can import from it; ``project_wide`` an
    import every file of the project sees (a C# ``global using``); ``condition`` when it
    is compiled (a Rust ``#[cfg]`` predicate; empty: always)."""

    target: str
    alias: str | None = None
    wildcard: bool = False
    name: str | None = None
    exported: bool = False
    project_wide: bool = False
    condition: str = ""

    @property
    def bound_name(self) -> str:
        """The simple name this import makes visible (Python binds the first segment)."""
        return self.alias or self.target.rsplit(".", 1)[-1]


DECLARATION_KINDS = frozenset({"type", "member", "macro"})
"""What a declaration can be: a type, a top-level function or value, a macro (Rust)."""


@dataclass(frozen=True, slots=True)
class Declaration:
    """A name declared in a file and visible outside its body.

    ``kind`` is ``type`` (class, interface, object, enum, record, alias), ``member`` (a
    top-level function or value) or ``macro``; ``nested`` says whether it sits inside another type.
    ``lines`` (1-based, inclusive) and ``span`` (byte offsets) locate its whole definition.
    ``exported`` says it is part of its module's public API (Rust ``pub``, an ES
    ``export``, a capitalised Go name outside ``internal/``…) rather than internal.
    ``condition`` says when it is compiled, in its language's terms (a Rust ``#[cfg]``
    predicate); empty: always.
    """

    simple_name: str
    qualified_name: str
    kind: str = "type"
    nested: bool = False
    lines: tuple[int, int] = (0, 0)
    span: tuple[int, int] = (0, 0)
    exported: bool = True
    condition: str = ""


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
    notes: tuple[str, ...] = ()
    """What reading the file could not take as written (unbalanced ``#if`` nesting)."""
    condition: str = ""
    """When the file is built at all, in its language's terms (a Go build constraint);
    empty: always."""
    focus: str = ""
    """For the facts of one declaration (extracted with a span): its qualified name."""

    def counted(self) -> dict[str, int]:
        """Each reference with how often the code uses it."""
        return dict(zip(self.references, self.uses or (1,) * len(self.references), strict=True))


MAX_ENTRIES = 10_000
"""Entries of each kind (imports, declarations, references, local names, supertypes) one
file's facts keep: the first ones, the rest cut (see :func:`bounded`)."""
MAX_NAME_CHARACTERS = 256 * 1024
"""Characters of names the entries of each kind may spell together in one file's facts."""


def bounded(facts: SourceFacts) -> tuple[SourceFacts, str]:
    """``facts`` cut to :data:`MAX_ENTRIES` entries and :data:`MAX_NAME_CHARACTERS`
    characters of names per kind, and what was cut, in words (empty: nothing was).

    Decoded and linked, a file's facts cost the server about a hundred bytes per entry
    besides their names: an import-only file of 2 MB names 270,000 imports (ten such files
    held the server at 1.1 GB), real code a few hundred per file (see
    ``docs/context-server.md``). Each kind keeps its first entries; a reference to a name
    bound only by what was cut (an import, a declaration, a local name) is dropped with it,
    so that linking never guesses another file for it: a cut file loses edges, it gains
    none."""
    imports = _first(facts.imports, _import_characters)
    declarations = _first(facts.declarations, _declaration_characters)
    local_names = facts.local_names
    kept_locals = len(local_names)
    if kept_locals > MAX_ENTRIES or sum(map(len, local_names)) > MAX_NAME_CHARACTERS:
        ordered = sorted(local_names)
        kept_locals = _first(ordered, len)
        local_names = frozenset(ordered[:kept_locals])
    supertypes = _first(facts.supertypes, len)
    unbound = (
        {item.bound_name for item in facts.imports[imports:]}
        | {item.simple_name for item in facts.declarations[declarations:]}
        | (facts.local_names - local_names)
    )
    pairs = list(zip(facts.references, facts.uses or (1,) * len(facts.references), strict=True))
    if unbound:
        unbound -= {item.bound_name for item in facts.imports[:imports]}
        unbound -= {item.simple_name for item in facts.declarations[:declarations]}
        unbound -= local_names
        pairs = [pair for pair in pairs if pair[0].split(".", 1)[0] not in unbound]
    references = _first([name for name, _ in pairs], len)
    counts = {
        "imports": (imports, len(facts.imports)),
        "declarations": (declarations, len(facts.declarations)),
        "references": (references, len(facts.references)),
        "local names": (kept_locals, len(facts.local_names)),
        "supertypes": (supertypes, len(facts.supertypes)),
    }
    cut = [
        f"{kind} {kept:,} of {whole:,}" for kind, (kept, whole) in counts.items() if kept < whole
    ]
    if not cut:
        return facts, ""
    note = (
        f"facts cut to the limit per file ({MAX_ENTRIES:,} entries and"
        f" {MAX_NAME_CHARACTERS // 1024} K characters of names of each kind), kept: "
        + ", ".join(cut)
    )
    smaller = replace(
        facts,
        imports=facts.imports[:imports],
        declarations=facts.declarations[:declarations],
        local_names=local_names,
        references=tuple(name for name, _ in pairs[:references]),
        uses=tuple(uses for _, uses in pairs[:references]) if facts.uses else (),
        supertypes=facts.supertypes[:supertypes],
        notes=(*facts.notes, note),
    )
    return smaller, note


_T = TypeVar("_T")


def _first(items: Sequence[_T], characters: Callable[[_T], int]) -> int:
    """How many of ``items`` fit the limits per kind, taken in order."""
    if len(items) <= MAX_ENTRIES and sum(map(characters, items)) <= MAX_NAME_CHARACTERS:
        return len(items)
    total = 0
    for count, item in enumerate(items[:MAX_ENTRIES]):
        total += characters(item)
        if total > MAX_NAME_CHARACTERS:
            return count
    return min(len(items), MAX_ENTRIES)


def _import_characters(item: Import) -> int:
    return len(item.target) + len(item.alias or "") + len(item.name or "") + len(item.condition)


def _declaration_characters(item: Declaration) -> int:
    return len(item.simple_name) + len(item.qualified_name) + len(item.condition)


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


@dataclass(frozen=True, slots=True)
class LinkKeys:
    """What linking one file shares with the others, by name (see
    :meth:`Linker.keys <context_server.core.languages.base.Linker.keys>`): ``offers`` the
    entries its own facts make in the project's tables, each with the name other files look
    it up by; ``reads`` the names its linking looks up there. After an edit, the files
    reading the name of an entry the edit added or removed are linked again."""

    offers: frozenset[tuple[str, str]]
    reads: frozenset[str]


@dataclass(frozen=True, slots=True)
class Alternative:
    """A name several project files could supply, resolved to one: ``chosen``, and the
    ``others`` set aside, with the ``reason`` (nearest module, public API, build tags…)."""

    name: str
    chosen: str
    others: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Linked:
    """What linking one file found: its dependencies; per dependency, the declarations
    (qualified names) its code uses and how often; the alternatives set aside; and notes on
    what was cut short (a re-export cycle, a chain too long)."""

    dependencies: FileDependencies
    symbols: Mapping[str, Mapping[str, int]]
    alternatives: tuple[Alternative, ...] = ()
    notes: tuple[str, ...] = ()


class EdgeSet:
    """Edges being collected for one file: each target once, with its strongest rule and
    the sum of its uses, in order of first addition; never the file itself.

    ``ranking`` orders the rules (lower is stronger; :data:`STRENGTH` unless a language
    ranks its own); a rule it does not rank never replaces the one recorded first.
    """

    def __init__(self, owner: str, ranking: Mapping[str, int] = STRENGTH) -> None:
        self.owner = owner
        self._ranking = ranking
        self._found: dict[str, tuple[str, int]] = {}
        self._symbols: dict[str, dict[str, int]] = {}
        self._alternatives: dict[str, Alternative] = {}
        self._notes: dict[str, None] = {}

    def add(self, target: str | None, rule: str, uses: int, symbol: str | None = None) -> None:
        """Record that the file reaches ``target`` by ``rule``, used ``uses`` times, and
        (when known) which declaration of it, by qualified name."""
        if target is None or target == self.owner:
            return
        if symbol is not None:
            used = self._symbols.setdefault(target, {})
            used[symbol] = used.get(symbol, 0) + uses
        known = self._found.get(target)
        if known is None:
            self._found[target] = (rule, uses)
        else:
            stronger = self._ranking.get(rule, _UNRANKED) < self._ranking.get(known[0], _UNRANKED)
            best = rule if stronger else known[0]
            self._found[target] = (best, known[1] + uses)

    def alternative(self, alternative: Alternative) -> None:
        """Record that a name was resolved to one of several files."""
        self._alternatives.setdefault(alternative.name, alternative)

    def note(self, text: str) -> None:
        """Record what linking had to cut short."""
        self._notes.setdefault(text, None)

    def __contains__(self, target: object) -> bool:
        return target in self._found

    def targets(self) -> set[str]:
        """The files reached so far."""
        return set(self._found)

    def edges(self) -> tuple[Edge, ...]:
        """The collected edges, in order of first addition."""
        return tuple(Edge(target, rule, uses) for target, (rule, uses) in self._found.items())

    def linked(
        self, ambiguous: tuple[Ambiguity, ...] = (), shadowed: tuple[str, ...] = ()
    ) -> Linked:
        """Everything collected, with the names left ``ambiguous`` and ``shadowed``."""
        return Linked(
            FileDependencies(self.edges(), ambiguous, shadowed),
            self._symbols,
            tuple(self._alternatives.values()),
            tuple(self._notes),
        )
