"""The ``find_context`` tool: the files a class depends on, in priority order, in budget."""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    Between,
    Bool,
    Clamp,
    Int,
    Offset,
    OneOf,
    Page,
    PageInfo,
    Pagination,
    Str,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
    code_block,
    markdown_table,
)
from pydantic import Field

from context_server.core.service import DETAILS, ContextSelection, ContextService, SelectedFile
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import ClassArguments
from context_server.tools.settle import settled

MAX_TOKEN_BUDGET = 10_000_000
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


class ContextArguments(ClassArguments):
    """A class, how far to follow its dependencies, and the budget their text must fit."""

    token_budget: Annotated[Int | None, Between(1, MAX_TOKEN_BUDGET)] = Field(
        None,
        description="Fill this many tokens with the most relevant dependencies that fit, "
        "skipping any that does not, e.g. 8000 (default: no budget).",
    )
    include_source: Bool = Field(
        False, description="Include the dependencies' source text (default false)."
    )
    detail: Annotated[Str, OneOf(DETAILS)] = Field(
        "full",
        description="full (default): the files' whole text; signatures: package, imports "
        "summary, declarations and member signatures with doc summaries, no bodies "
        "(several times fewer tokens). Token counts and the budget follow it.",
    )
    limit: Annotated[Int, Clamp(1, MAX_LIMIT)] = Pagination.limit_field(
        DEFAULT_LIMIT, MAX_LIMIT, "dependencies"
    )
    offset: Offset = Pagination.offset_field("dependencies")


class ContextFile(StructuredResult):
    """A file of the context: where it sits, what it declares, what it costs (and its text)."""

    path: str
    language: str
    level: int
    declarations: list[str]
    tokens: int
    # present only when the call asked for the source text
    source: str | None = Field(None, exclude_if=lambda value: value is None)
    # a dependency: the rule that found it and how often the file before it uses it
    # (0: named only by an import, e.g. for documentation)
    rule: str | None = Field(None, exclude_if=lambda value: value is None)
    uses: int | None = Field(None, exclude_if=lambda value: value is None)
    # the target: the declaration the class name chose and, when narrowed to it, its lines
    symbol: str | None = Field(None, exclude_if=lambda value: value is None)
    lines: list[int] | None = Field(None, exclude_if=lambda value: value is None)

    @classmethod
    def of(cls, item: SelectedFile) -> ContextFile:
        """The facts of one selected file."""
        return cls(
            path=item.path,
            language=item.language,
            level=item.level,
            declarations=list(item.declarations),
            tokens=item.tokens,
            source=item.source,
            rule=item.rule or None,
            uses=item.uses if item.rule else None,
            symbol=item.symbol,
            lines=list(item.lines) if item.lines is not None else None,
        )


class OmittedFile(StructuredResult):
    """A dependency left out to fit the budget, and what it would have cost."""

    path: str
    tokens: int


class Ambiguity(StructuredResult):
    """A name the resolver would not guess: the project classes it could mean."""

    name: str
    candidates: list[str]


class AlternativeChoice(StructuredResult):
    """A name several project files could supply: the one chosen, the others, and why."""

    name: str
    chosen: str
    others: list[str]
    reason: str


class ContextAnswer(StructuredResult):
    """The answer of ``find_context``: the target, its dependencies in priority order, and
    what was left out or could not be resolved."""

    target: ContextFile
    depth: int
    tokenizer: str
    token_budget: int | None
    detail: str
    dependencies: list[ContextFile]
    dependency_tokens: int
    omitted: list[OmittedFile]
    ambiguous: list[Ambiguity]
    alternatives: list[AlternativeChoice]
    notes: list[str]
    other_matches: list[str]
    page: PageInfo


DEFINITION = ToolDefinition(
    name="find_context",
    description=(
        "Find the project files a class depends on, most relevant first, optionally with "
        "their source within a token budget."
    ),
    arguments=ContextArguments,
    annotations=ToolAnnotations.read_only_tool(title="Find context"),
    result=ContextAnswer,
)


class FindContextTool:
    """Finds the project files a class depends on, most relevant first, within a budget."""

    definition = DEFINITION

    def __init__(self, service: ContextService) -> None:
        self._service = service

    @settled
    def call(self, arguments: ContextArguments, context: ToolContext) -> ToolResult:
        """Select the class's dependencies and render them."""
        index = self._service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        selection = self._service.select(
            index,
            arguments.class_name,
            arguments.depth,
            arguments.tokenizer,
            arguments.token_budget,
            arguments.include_source,
            arguments.detail,
        )
        page, text = fit_page(
            Pagination(arguments.limit, arguments.offset).apply(selection.dependencies),
            lambda part: _markdown(arguments, selection, part),
        )
        answer = ContextAnswer(
            target=ContextFile.of(selection.target),
            depth=arguments.depth,
            tokenizer=arguments.tokenizer,
            token_budget=arguments.token_budget,
            detail=arguments.detail,
            dependencies=[ContextFile.of(item) for item in page.items],
            dependency_tokens=selection.dependency_tokens,
            omitted=[OmittedFile(path=item.path, tokens=item.tokens) for item in selection.omitted],
            ambiguous=[
                Ambiguity(name=a.name, candidates=list(a.candidates)) for a in selection.ambiguous
            ],
            alternatives=[
                AlternativeChoice(
                    name=a.name, chosen=a.chosen, others=list(a.others), reason=a.reason
                )
                for a in selection.alternatives
            ],
            notes=list(selection.notes),
            other_matches=list(selection.other_matches),
            page=page.info(),
        )
        return ToolResult.success(text, answer)


def _markdown(
    arguments: ContextArguments, selection: ContextSelection, page: Page[SelectedFile]
) -> str:
    depth, tokenizer, budget = arguments.depth, arguments.tokenizer, arguments.token_budget
    target = selection.target
    chosen = f", declaration `{target.symbol}`" if target.symbol else ""
    if target.lines is not None:
        chosen += f" at lines {target.lines[0]}-{target.lines[1]}"
    out = [
        f"# Context for `{arguments.class_name}`\n\n"
        f"Target: `{target.path}`{chosen} ({target.tokens} tokens).\n"
    ]
    if arguments.detail == "signatures":
        out.append(
            "Texts and token counts are signatures only: declarations, fields and member "
            "signatures with doc summaries, no bodies.\n"
        )
    if selection.other_matches:
        shown = ", ".join(f"`{m}`" for m in selection.other_matches)
        out.append(
            "Also matched (not chosen; top-level before nested, main before test sources, "
            "public before internal, shorter module path first, the file named after it first): "
            f"{shown}.\n"
        )
    if not selection.dependencies and not selection.omitted:
        out.append(f"\nNo project dependencies within depth {depth}.\n")
    if selection.dependencies:
        budget_text = f" of a {budget} token budget" if budget is not None else ""
        out.append(
            f"\n{len(selection.dependencies)} dependencies, nearest and most used first, "
            f"{selection.dependency_tokens} {tokenizer} tokens{budget_text}{page.notice}:\n\n"
        )
        out.append(shortened_note(page, "dependencies"))
        if page.items:
            out.append(
                markdown_table(
                    ("#", "File", "Level", "Found by", "Uses", "Tokens", "Declares"),
                    [
                        (
                            page.offset + n,
                            item.path,
                            item.level,
                            item.rule,
                            item.uses if item.uses else "0 (import only)",
                            item.tokens,
                            ", ".join(item.declarations),
                        )
                        for n, item in enumerate(page.items, start=1)
                    ],
                )
            )
    if selection.omitted and not selection.dependencies:
        first = selection.omitted[0]
        smallest = min(selection.omitted, key=lambda item: item.tokens)
        also = (
            f"; the smallest, `{smallest.path}`, needs {smallest.tokens}"
            if smallest is not first
            else ""
        )
        out.append(
            f"\nNo dependency fits the {budget} token budget: the nearest, `{first.path}`, "
            f"alone needs {first.tokens} {tokenizer} tokens{also}.\n"
        )
    if selection.omitted:
        out.append(
            f"\nLeft out to fit the budget ({len(selection.omitted)}, in priority order, "
            "with their cost): "
            + ", ".join(f"`{item.path}` ({item.tokens})" for item in selection.omitted)
            + "\n"
        )
    for ambiguity in selection.ambiguous:
        out.append(
            f"\nNot resolved: `{ambiguity.name}` is ambiguous between "
            + ", ".join(f"`{c}`" for c in ambiguity.candidates)
            + "; import it explicitly to resolve it.\n"
        )
    for alternative in selection.alternatives:
        out.append(
            f"\nChosen for `{alternative.name}`: `{alternative.chosen}` ({alternative.reason}); "
            "also declared in " + ", ".join(f"`{other}`" for other in alternative.others) + ".\n"
        )
    for note in selection.notes:
        out.append(f"\nCut short: {note}.\n")
    for item in page.items:
        if item.source is not None:
            out.append(f"\n## `{item.path}`\n\n{code_block(item.source, item.language)}")
    return "".join(out)
