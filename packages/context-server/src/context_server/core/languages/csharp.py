"""C#: namespace facts, resolved by the name rules of :mod:`~context_server.core.languages.names`.

A namespace plays the part of a package: a file sees the types of its own namespace and of
the namespaces enclosing it (recorded as wildcard imports), ``using N;`` is a wildcard
import, ``using A = N.T;`` an alias and ``using static N.T;`` a wildcard over the type's
nested names. Both namespace forms count (``namespace N;`` and ``namespace N { … }``, nested
ones too). A partial class is one class across files: every file declaring it is linked.
References are identifier nodes of code, a dotted name (``N.T``, ``Alias.T``) kept whole.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import tree_sitter
import tree_sitter_c_sharp

from context_server.core.facts import Declaration, EdgeSet, Import, Linked, LinkKeys, SourceFacts
from context_server.core.languages.base import Linker, SourceLanguage, in_order
from context_server.core.languages.names import Bindings, NameLinker, NamePolicy

CSHARP = SourceLanguage("csharp", "C#", (".cs",), tree_sitter_c_sharp.language)
# C# sees only its namespaces and usings (no guessing); a partial class is one type over
# several files; namespaces are capitalised like types.
_POLICY = NamePolicy(spread_types=True, capitalised_namespaces=True)

_TYPES = frozenset(
    {
        "class_declaration",
        "struct_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
        "record_struct_declaration",
        "delegate_declaration",
    }
)
_NAMESPACES = frozenset({"namespace_declaration", "file_scoped_namespace_declaration"})
_CHAINS = frozenset({"qualified_name", "member_access_expression", "alias_qualified_name"})
_DOTTED = re.compile(r"[A-Za-z_@][\w]*(?:\.[A-Za-z_@][\w]*)+")
_DIRECTIVE = re.compile(r"[ \t]*#[ \t]*(if|elif|else|endif)\b")
MAX_ALTERNATIVES = 8
"""Alternatives a file's ``#if`` blocks are read as, at most."""
_LINES = re.compile(r"[^\n]*\n|[^\n]+")


def _query(language: SourceLanguage) -> tree_sitter.Query:
    return language.query("(identifier) @name")


def _text(node: tree_sitter.Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _compact(node: tree_sitter.Node | None) -> str:
    return "".join(_text(node).split())


@dataclass
class _Walk:
    namespaces: list[str] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    declarations: list[Declaration] = field(default_factory=list)
    skipped: list[tuple[int, int]] = field(default_factory=list)


def extract_csharp(
    language: SourceLanguage, text: str, module: str = "", span: tuple[int, int] | None = None
) -> SourceFacts:
    """The facts of one C# file; with ``span``, only references inside it are collected
    (and ``focus`` names the type declared there).

    A file with ``#if`` blocks is read once per alternative (see :func:`branches`): what
    any alternative declares, imports or names counts, each reference as often as the
    alternative naming it most.
    """
    variants, notes = branches(text)
    if len(variants) == 1:
        return _extract(language, variants[0], module, span, notes)
    facts = [_extract(language, variant, module, span, notes) for variant in variants]
    declarations: dict[tuple[str, str], Declaration] = {}
    imports: dict[Import, None] = {}
    counts: Counter[str] = Counter()
    for one in facts:
        for declaration in one.declarations:
            declarations.setdefault((declaration.qualified_name, declaration.kind), declaration)
        imports.update(dict.fromkeys(one.imports))
        counts |= Counter(one.counted())
    first = facts[0]
    return SourceFacts(
        language=first.language,
        package=next((one.package for one in facts if one.package), ""),
        imports=tuple(imports),
        declarations=tuple(sorted(declarations.values(), key=lambda d: d.span)),
        local_names=frozenset(name for one in facts for name in one.local_names),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
        notes=notes,
        focus=first.focus,
    )


def branches(text: str) -> tuple[list[str], tuple[str, ...]]:
    """The alternatives a file's ``#if``/``#elif``/``#else`` blocks make, as texts of the
    same length (inactive branches and directive lines blanked, line breaks kept), and
    notes on nesting that does not balance.

    Alternative *k* keeps branch *k* of every block (its last branch when it has fewer;
    none when that block has no ``#else``), so every branch is read in one alternative
    at least, at most :data:`MAX_ALTERNATIVES` of them. An ``#endif`` without ``#if`` is
    ignored and an ``#if`` left open ends with the file, each noted.
    """
    lines = _LINES.findall(text)
    directives: list[tuple[int, str]] = []
    for number, line in enumerate(lines):
        match = _DIRECTIVE.match(line)
        if match is not None:
            directives.append((number, match.group(1)))
    if not any(kind == "if" for _, kind in directives):
        return [text], ()
    notes: list[str] = []
    # per line: the (block, branch) pairs it sits in, outermost first
    blocks: list[list[str]] = []  # per block: the directive opening each branch
    stack: list[int] = []
    owner: list[tuple[tuple[int, int], ...]] = [()] * len(lines)
    blank: set[int] = set()
    current: tuple[tuple[int, int], ...] = ()
    position = 0
    for number in range(len(lines)):
        if position < len(directives) and directives[position][0] == number:
            kind = directives[position][1]
            position += 1
            blank.add(number)
            if kind == "if":
                blocks.append([kind])
                stack.append(len(blocks) - 1)
                current = (*current, (stack[-1], 0))
            elif kind in {"elif", "else"}:
                if not stack:
                    notes.append(f"#{kind} without #if at line {number + 1} ignored")
                    continue
                blocks[stack[-1]].append(kind)
                current = (*current[:-1], (stack[-1], len(blocks[stack[-1]]) - 1))
            elif kind == "endif":
                if not stack:
                    notes.append(f"#endif without #if at line {number + 1} ignored")
                    continue
                stack.pop()
                current = current[:-1]
            continue
        owner[number] = current
    if stack:
        notes.append(f"{len(stack)} #if never closed: each ends with the file")
    has_else = ["else" in block for block in blocks]
    count = min(MAX_ALTERNATIVES, max(len(block) for block in blocks))
    if count < max(len(block) for block in blocks):
        notes.append(f"more than {MAX_ALTERNATIVES} branches in one block: the rest not read")
    variants = []
    for alternative in range(count):
        out = []
        for number, line in enumerate(lines):
            keep = number not in blank and all(
                branch == min(alternative, len(blocks[block]) - 1)
                and (alternative < len(blocks[block]) or has_else[block])
                for block, branch in owner[number]
            )
            out.append(line if keep else _blanked(line))
        variants.append("".join(out))
    return variants, tuple(notes)


def _blanked(line: str) -> str:
    """``line`` as spaces of the same UTF-8 length, its line break kept."""
    body = line.rstrip("\r\n")
    return " " * len(body.encode("utf-8")) + line[len(body) :]


def _extract(
    language: SourceLanguage,
    text: str,
    module: str,
    span: tuple[int, int] | None,
    notes: tuple[str, ...],
) -> SourceFacts:
    source = text.encode("utf-8")
    parsed = language.parse(source)
    root = parsed.root
    walk = _Walk()
    _visit(root, "", None, walk)
    names: list[str] = []
    for node in parsed.each(in_order(tree_sitter.QueryCursor(_query(language)).captures(root))):
        start = node.start_byte
        if span is not None and not span[0] <= start < span[1]:
            continue
        if any(first <= start < last for first, last in walk.skipped):
            continue
        name = _reference(node)
        if name:
            names.append(name)
    counts = Counter(names)
    package = walk.namespaces[0] if walk.namespaces else ""
    focus = next((d.qualified_name for d in walk.declarations if d.span == span), "")
    # Every enclosing namespace (and any further namespace of the file) is visible too.
    seen: set[str] = {package}
    enclosing: list[Import] = []
    for namespace in walk.namespaces:
        parts = namespace.split(".")
        for size in range(len(parts), 0, -1):
            outer = ".".join(parts[:size])
            if outer not in seen:
                seen.add(outer)
                enclosing.append(Import(outer, None, True))
    return SourceFacts(
        language=language.name,
        package=package,
        imports=(*walk.imports, *enclosing),
        declarations=tuple(walk.declarations),
        local_names=frozenset(d.simple_name for d in walk.declarations),
        references=tuple(counts),
        module=module,
        uses=tuple(counts.values()),
        notes=notes,
        focus=focus,
    )


def _visit(node: tree_sitter.Node, namespace: str, outer: str | None, walk: _Walk) -> None:
    """Record namespaces, ``using`` directives and type declarations below ``node``."""
    for child in node.named_children:
        kind = child.type
        if kind == "using_directive":
            walk.imports.append(_using(child))
            walk.skipped.append((child.start_byte, child.end_byte))
        elif kind in _NAMESPACES:
            name_node = child.child_by_field_name("name")
            name = _compact(name_node)
            full = f"{namespace}.{name}" if namespace else name
            walk.namespaces.append(full)
            if name_node is not None:
                walk.skipped.append((name_node.start_byte, name_node.end_byte))
            body = child.child_by_field_name("body")
            if body is not None:
                _visit(body, full, None, walk)
            else:
                # ``namespace N;``: the rest of the file is its body.
                namespace = full
        elif kind in _TYPES:
            name = _text(child.child_by_field_name("name"))
            if not name:
                continue
            prefix = outer if outer is not None else namespace
            qualified = f"{prefix}.{name}" if prefix else name
            body = child.child_by_field_name("body")
            if _shell(child, body):
                # a part adding nested types only: they are declared, not the outer type
                if body is not None:
                    _visit(body, namespace, qualified, walk)
                continue
            walk.declarations.append(
                Declaration(
                    name,
                    qualified,
                    "type",
                    outer is not None,
                    (child.start_point[0] + 1, child.end_point[0] + 1),
                    (child.start_byte, child.end_byte),
                    any(c.type == "modifier" and _text(c) == "public" for c in child.children),
                )
            )
            if body is not None:
                _visit(body, namespace, qualified, walk)
        elif kind == "declaration_list" or kind.startswith("global_"):
            _visit(child, namespace, outer, walk)


def _shell(node: tree_sitter.Node, body: tree_sitter.Node | None) -> bool:
    """Whether ``node`` is a part of a partial type holding nested types and nothing of
    its own (no member, base type or attribute): ``SqlMapper.Identity.cs`` adds the class
    ``SqlMapper.Identity``, not a part of ``SqlMapper``'s body."""
    if body is None or not any(
        c.type == "modifier" and _text(c) == "partial" for c in node.children
    ):
        return False
    if any(c.type in {"base_list", "attribute_list"} for c in node.named_children):
        return False
    inner = [c for c in body.named_children if c.type != "comment"]
    return bool(inner) and all(c.type in _TYPES for c in inner)


def _using(node: tree_sitter.Node) -> Import:
    alias = node.child_by_field_name("name")
    target = next(
        (
            _compact(c)
            for c in node.named_children
            if c.type in {"qualified_name", "identifier", "alias_qualified_name"}
            and (alias is None or c.id != alias.id)
        ),
        "",
    )
    wide = any(c.type == "global" for c in node.children)
    if alias is not None:
        return Import(target, _text(alias), project_wide=wide)
    return Import(target, None, True, project_wide=wide)


def _reference(node: tree_sitter.Node) -> str | None:
    """The name an identifier node contributes: the whole dotted name for the first segment
    of one, nothing for a later segment or a declaration's own name. An attribute's name
    ``[JsonProperty]`` means the class ``JsonPropertyAttribute``."""
    parent = node.parent
    if parent is None:
        return _text(node)
    if parent.type == "attribute":
        return _attribute(_text(node))
    named = parent.child_by_field_name("name")
    if named is not None and named.id == node.id and parent.type not in _CHAINS:
        return None
    best: str | None = None
    top: tree_sitter.Node = node
    current: tree_sitter.Node | None = parent
    while current is not None and current.type in _CHAINS:
        if current.start_byte != node.start_byte:
            return None  # a later segment: the chain was counted at its first one
        compact = _compact(current)
        if _DOTTED.fullmatch(compact):
            best = compact
            top = current
        current = current.parent
    if best is not None and top.parent is not None and top.parent.type == "attribute":
        head, _, last = best.rpartition(".")
        return f"{head}.{_attribute(last)}"
    return best or _text(node)


def _attribute(name: str) -> str:
    """The class an attribute's name means (C# adds ``Attribute`` unless it is there)."""
    return name if name.endswith("Attribute") else f"{name}Attribute"


class CSharpLinker(NameLinker):
    """The name rules, with each ``global using`` seen by every file of its project: the
    folder of the file declaring it (where ``GlobalUsings.cs`` sits beside the
    ``.csproj``) and below."""

    def __init__(self, sources: Mapping[str, SourceFacts], policy: NamePolicy) -> None:
        super().__init__(sources, policy)
        wide: dict[str, list[Import]] = {}
        own: dict[str, frozenset[Import]] = {}
        for path, facts in sources.items():
            mine = [item for item in facts.imports if item.project_wide]
            if mine:
                own[path] = frozenset(mine)
                wide.setdefault(posixpath.dirname(path), []).extend(mine)
        self._wide = {folder: tuple(items) for folder, items in wide.items()}
        self._own = own

    def link_imports(
        self, found: EdgeSet, facts: SourceFacts, bindings: Bindings, whole: bool
    ) -> None:
        """The edges of the file's own imports: another file's ``global using`` lets its
        names resolve, and is no dependency by itself."""
        mine = self._own.get(found.owner, frozenset())
        kept = tuple(i for i in facts.imports if not i.project_wide or i in mine)
        super().link_imports(found, replace(facts, imports=kept), bindings, whole)

    def link(self, relative: str, facts: SourceFacts, whole: bool) -> Linked:
        """The dependencies of ``facts``, the global usings of its project included."""
        return super().link(relative, self._with_global_usings(relative, facts), whole)

    def keys(self, relative: str, facts: SourceFacts) -> LinkKeys | None:
        """The name rules' keys, the global usings the file sees read as its own imports;
        a file declaring a global using changes what every file below its folder sees
        (None: its whole family is linked again)."""
        if any(item.project_wide for item in facts.imports):
            return None
        return super().keys(relative, self._with_global_usings(relative, facts))

    def _with_global_usings(self, relative: str, facts: SourceFacts) -> SourceFacts:
        """``facts`` with the global usings of the file's project among its imports."""
        if not self._wide:
            return facts
        extra: list[Import] = []
        folder = posixpath.dirname(relative)
        while True:
            extra.extend(i for i in self._wide.get(folder, ()) if i not in facts.imports)
            if not folder:
                break
            folder = posixpath.dirname(folder)
        return replace(facts, imports=(*facts.imports, *extra)) if extra else facts


class CSharp:
    """The C# plugin (see :class:`context_server.core.languages.base.Language`)."""

    name = "csharp"
    dialects = (CSHARP,)
    config_files: tuple[str, ...] = ()

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """C# files are named by their namespaces, not by their path."""
        return dict.fromkeys(paths, "")

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one C# file."""
        return extract_csharp(dialect, text, module, span)

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """Namespaces and usings by the name rules, ``global using`` for the whole project."""
        return CSharpLinker(sources, _POLICY)

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """Users name a file's types only."""
        return ()


CSHARP_LANGUAGE = CSharp()
