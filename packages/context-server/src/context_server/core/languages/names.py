"""Linking by qualified names: the rules of languages whose files name packages and types.

Order for a name: a fully-qualified use, the file's explicit imports, its own package,
its wildcard imports, the language's implicit imports (``java.lang.*``, Kotlin's and Scala's
defaults: a platform type, never a project file), then (where the language allows it) a
simple name declared at top level exactly once in the project. An ambiguous simple name is
never guessed; it is reported instead. When several files declare the same qualified type
name, the first by sorted path wins, every time, unless the language spreads one type over
several files (C# partial classes: every file is linked); an imported top-level function or
value links every file declaring it (Kotlin overloads for different receivers live in
different files).

An explicit import whose target is not in the project binds the name to that outside type:
it does not fall through to a project type of the same simple name (the anchor's known
false positive). A dotted name whose first segment is bound outside the project never
resolves by a later segment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from context_server.core.facts import (
    Alternative,
    Ambiguity,
    EdgeSet,
    Import,
    Linked,
    LinkKeys,
    SourceFacts,
)
from context_server.core.walk import sort_key


@dataclass(frozen=True)
class NamePolicy:
    """How a language's names resolve beyond imports and packages.

    ``implicit``: per dialect, the names its files see without importing them (platform
    types); ``guessing``: an unresolved simple name declared at top level exactly once in the
    project is linked; ``spread_types``: a type declared in several files is one type (every
    file is linked); ``capitalised_namespaces``: namespaces are capitalised like types, so a
    capitalised dotted name may be fully qualified.
    """

    implicit: Mapping[str, frozenset[str]] = field(default_factory=dict)
    guessing: bool = False
    spread_types: bool = False
    capitalised_namespaces: bool = False


class NameTables:
    """The declarations of a set of files, by qualified and simple name.

    ``modules``: a file's module name declares it too (Python).
    """

    def __init__(
        self, sources: Mapping[str, SourceFacts], policy: NamePolicy, modules: bool = False
    ) -> None:
        by_name: dict[str, list[str]] = {}
        types: dict[str, list[str]] = {}
        members: dict[str, list[str]] = {}
        top_level: dict[str, set[str]] = {}
        nested: dict[str, set[str]] = {}
        packages: set[str] = set()
        spread: set[str] = set()
        internal: set[str] = set()
        # one pass: reading a file's facts may mean decoding them
        for relative, facts in sources.items():
            top = [d for d in facts.declarations if not d.nested]
            if top and not any(d.exported for d in top):
                internal.add(relative)
            packages.add(facts.package)
            if modules and facts.module:
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
                if policy.spread_types:
                    spread.add(qualified)
                if not policy.guessing:
                    continue
                if declaration.nested:
                    nested.setdefault(declaration.simple_name, set()).add(relative)
                else:
                    top_level.setdefault(declaration.simple_name, set()).add(qualified)
        self.by_name = {name: tuple(files) for name, files in by_name.items()}
        # A Kotlin factory function may share its class's qualified name: the two are apart.
        self.types = {name: tuple(files) for name, files in types.items()}
        self.members = {name: tuple(files) for name, files in members.items()}
        self.top_level = top_level
        self.nested = nested
        self.packages = frozenset(packages)
        self.spread = frozenset(spread)
        self.internal = frozenset(internal)

    def longest(self, segments: list[str], minimum: int, members: bool = True) -> str | None:
        """The longest declared prefix of ``segments`` (at least ``minimum`` long); a
        top-level function or value only with ``members`` (a type reference never means one)."""
        for size in range(len(segments), minimum - 1, -1):
            name = ".".join(segments[:size])
            if name in self.types or (members and name in self.members):
                return name
        return None

    def owners(
        self, qualified: str, referrer: str, found: EdgeSet | None = None, members: bool = True
    ) -> tuple[str, ...]:
        """The files ``qualified`` links from ``referrer``: of several files declaring one
        type, the nearest to ``referrer`` (the others recorded as alternatives in ``found``)
        or, for a spread type, every one; else, with ``members``, every file declaring a
        function or value of that name (overloads for different receivers live in
        different files). A Kotlin factory function named like its class is taken to mean
        the class."""
        files = self.types.get(qualified, ())
        if len(files) > 1 and qualified not in self.spread:
            chosen = nearest(referrer, files)
            if found is not None:
                others = tuple(f for f in files if f != chosen)
                found.alternative(Alternative(qualified, chosen, others, "nearest module"))
            files = (chosen,)
        if members and not files:
            files = self.members.get(qualified, ())
        return files


class Bindings:
    """What a file's imports bind: explicit names and wildcard bases."""

    def __init__(self, imports: tuple[Import, ...]) -> None:
        self.names: dict[str, str] = {}
        self.wildcards: list[str] = []
        for item in imports:
            if item.wildcard:
                self.wildcards.append(item.target)
            else:
                self.names[item.bound_name] = item.target


class NameLinker:
    """Links the files of a language that names packages and types (JVM, C#)."""

    def __init__(self, sources: Mapping[str, SourceFacts], policy: NamePolicy) -> None:
        self.policy = policy
        self.tables = self.build_tables(sources, policy)

    def build_tables(self, sources: Mapping[str, SourceFacts], policy: NamePolicy) -> NameTables:
        """The declaration tables of ``sources``."""
        return NameTables(sources, policy)

    def declared(self, name: str) -> tuple[str, ...]:
        """Files declaring ``name`` (a type, a member, a module), by sorted path."""
        return self.tables.by_name.get(name, ())

    def internal(self, relative: str) -> bool:
        """Whether the file declares types, none of them exported (C# ``internal``
        classes; JVM and Python declarations count as exported)."""
        return relative in self.tables.internal

    def keys(self, relative: str, facts: SourceFacts) -> LinkKeys | None:
        """A file's entries are its declarations (by qualified name, and by simple name
        for the last resort) and its package, as :class:`NameTables` keeps them; every
        name :meth:`link` looks up for it ends in a segment of one of its imports,
        references or supertypes (after a package, an import or an enclosing type of its
        own), or of its own declarations (the other parts of a spread type)."""
        offers: set[tuple[str, str]] = {
            (facts.package.rpartition(".")[2], f"package {facts.package}")
        }
        for declaration in facts.declarations:
            qualified = declaration.qualified_name
            table = "member" if declaration.kind == "member" else "type"
            offers.add((qualified.rpartition(".")[2], f"{table} {qualified}"))
            if table == "type":
                place = "nested" if declaration.nested else "top"
                offers.add((declaration.simple_name, f"{place} {qualified}"))
        return LinkKeys(frozenset(offers), frozenset(self.read_names(facts)))

    def read_names(self, facts: SourceFacts) -> set[str]:
        """Every name segment the file's own linking may end a look-up with."""
        names: set[str] = set()
        for item in facts.imports:
            names.update(item.target.split("."))
        for written in (*facts.references, *facts.supertypes):
            names.update(written.split("."))
        names.update(declaration.simple_name for declaration in facts.declarations)
        names.update(
            declaration.qualified_name.rpartition(".")[2] for declaration in facts.declarations
        )
        return names

    def link_imports(
        self, found: EdgeSet, facts: SourceFacts, bindings: Bindings, whole: bool
    ) -> None:
        """Edges of the imports themselves (and, for the whole file or one type of it, the
        other parts of a type spread over several files)."""
        tables = self.tables
        if not whole:
            if facts.focus in tables.spread:
                for owner in tables.owners(facts.focus, found.owner, found, members=False):
                    found.add(owner, "package", 1, facts.focus)
            return
        for item in facts.imports:
            # A type import counts as used once code names it; a function, value or
            # wildcard import is taken as used (lower-case uses are not collected).
            assumed = 0 if not item.wildcard and item.bound_name[:1].isupper() else 1
            qualified = tables.longest(item.target.split("."), 1)
            if qualified is not None:
                for owner in tables.owners(qualified, found.owner, found):
                    found.add(owner, "import", assumed, qualified)
        # The other parts of a type spread over several files (a C# partial class).
        for declaration in facts.declarations:
            if declaration.qualified_name in tables.spread:
                for owner in tables.owners(
                    declaration.qualified_name, found.owner, found, members=False
                ):
                    found.add(owner, "package", 1, declaration.qualified_name)

    def link(self, relative: str, facts: SourceFacts, whole: bool) -> Linked:
        """The dependencies of ``facts`` (see the module's rules)."""
        tables = self.tables
        bindings = Bindings(facts.imports)
        found = EdgeSet(relative)
        self.link_imports(found, facts, bindings, whole)
        ambiguous: dict[str, Ambiguity] = {}
        shadowed: dict[str, None] = {}
        implicit = self.policy.implicit.get(facts.language, frozenset())
        enclosing = self._enclosing(facts)
        # A wildcard import from outside the project may supply any unresolved simple name.
        outside_wildcard = any(
            base not in tables.packages and base not in tables.types for base in bindings.wildcards
        )
        guesses: list[tuple[str, int]] = []
        for reference, count in facts.counted().items():
            segments = reference.split(".")
            if segments[0] in facts.local_names:
                continue
            qualified, rule = self.meaning(segments, facts.package, bindings, implicit, enclosing)
            if rule == "implicit":
                if segments[0] in tables.top_level:
                    shadowed.setdefault(segments[0], None)
                continue
            if rule == "simple-name" and len(segments) > 1 and self.policy.capitalised_namespaces:
                # C# namespaces are capitalised like types: ``A.Widget`` is fully qualified
                # once no namespace the file sees holds an ``A``.
                qualified = tables.longest(segments, 2, False)
                rule = "qualified" if qualified is not None else rule
            if rule == "simple-name":
                if not outside_wildcard and self.policy.guessing:
                    guesses.append((reference, count))
                continue
            if qualified is not None:
                for owner in tables.owners(qualified, relative, found, members=False):
                    found.add(owner, rule, count, qualified)
        # Last, once every certain edge is known: a name nested in a type the file already
        # depends on (or, for a file whose types extend others, anywhere) is most likely
        # inherited (``CronField.Type`` used as ``Type`` in a subclass), not the unrelated
        # top-level type of that name; and a type extending one from outside the project
        # may inherit any name from it, so then nothing is guessed.
        if guesses and self._extends_outside(facts, bindings, implicit):
            guesses = []
        for reference, count in guesses:
            segments = reference.split(".")
            nested_in = tables.nested.get(segments[0], set())
            if nested_in and (facts.supertypes or nested_in & (found.targets() | {relative})):
                continue
            qualified, ambiguity = self._guess(segments)
            if qualified is not None:
                for owner in tables.owners(qualified, relative, found, members=False):
                    found.add(owner, "simple-name", count, qualified)
            if ambiguity is not None:
                ambiguous.setdefault(ambiguity.name, ambiguity)
        return found.linked(tuple(ambiguous.values()), tuple(shadowed))

    def meaning(
        self,
        segments: list[str],
        package: str,
        bindings: Bindings,
        implicit: frozenset[str],
        enclosing: Sequence[str] = (),
    ) -> tuple[str | None, str]:
        """The qualified name a reference means and the rule that says so.

        ``implicit`` means a platform type; ``simple-name`` means nothing certain was found
        (the caller may still guess, see :meth:`_guess`). ``enclosing`` are the types whose
        nested types the file sees unqualified, innermost first.
        """
        tables = self.tables
        outer = segments[0]
        if outer in bindings.names:
            target = bindings.names[outer].split(".")
            return tables.longest(target + segments[1:], len(target), False), "import"
        for owner in enclosing:
            scope = owner.split(".")
            inner = tables.longest(scope + segments, len(scope) + 1, False)
            if inner is not None:
                return inner, "package"
        if len(segments) > 1 and not outer[:1].isupper():
            return tables.longest(segments, 2, False), "qualified"
        prefix = package.split(".") if package else []
        found = tables.longest(prefix + segments, len(prefix) + 1, False)
        if found is not None:
            return found, "package"
        for base in bindings.wildcards:
            base_parts = base.split(".")
            found = tables.longest(base_parts + segments, len(base_parts) + 1, False)
            if found is not None:
                return found, "wildcard"
        if outer in implicit:
            return None, "implicit"
        return None, "simple-name"

    def _enclosing(self, facts: SourceFacts) -> tuple[str, ...]:
        """The types of a spread type's part (a C# partial class) whose nested types,
        declared in any part, its code names unqualified: innermost first."""
        if not self.policy.spread_types:
            return ()
        types: dict[str, None] = {}
        for declaration in facts.declarations:
            if declaration.kind == "type":
                types[declaration.qualified_name] = None
                if declaration.nested:
                    # the outer type, even where this part declares nothing else of it
                    types[declaration.qualified_name.rsplit(".", 1)[0]] = None
        return tuple(sorted(types, key=lambda name: -name.count(".")))

    def _extends_outside(
        self, facts: SourceFacts, bindings: Bindings, implicit: frozenset[str]
    ) -> bool:
        """Whether a type of the file extends or implements a type outside the project."""
        for name in facts.supertypes:
            segments = name.split(".")
            if segments[0] in facts.local_names:
                continue
            qualified, rule = self.meaning(segments, facts.package, bindings, implicit)
            if qualified is None and rule != "simple-name":
                return True
            if rule == "simple-name" and self._guess(segments)[0] is None:
                return True
        return False

    def _guess(self, segments: list[str]) -> tuple[str | None, Ambiguity | None]:
        """The last resort: a simple name declared at top level exactly once."""
        tables = self.tables
        candidates = tables.top_level.get(segments[0], set())
        if len(candidates) == 1:
            only = next(iter(candidates)).split(".")
            qualified = tables.longest([*only, *segments[1:]], 1, False)
            return qualified, None
        if len(candidates) > 1:
            files = sorted({tables.types[c][0] for c in candidates}, key=sort_key)
            return None, Ambiguity(segments[0], tuple(files))
        return None, None


def nearest(referrer: str, files: Sequence[str]) -> str:
    """The file of ``files`` nearest ``referrer`` in the folder tree: the most leading
    folders in common, then the shallowest, then the first by path."""
    home = referrer.split("/")[:-1]

    def distance(file: str) -> tuple[int, int, bytes]:
        folders = file.split("/")[:-1]
        shared = 0
        for mine, theirs in zip(home, folders, strict=False):
            if mine != theirs:
                break
            shared += 1
        return -shared, len(folders), sort_key(file)

    return min(files, key=distance)
