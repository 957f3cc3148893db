"""The ``find_context`` tool: the files a class depends on, in priority order, in budget."""

from __future__ import annotations

from typing import Any

from mcp_common import (
    PAGE_SCHEMA,
    Page,
    Pagination,
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    markdown_table,
    object_schema,
)

from context_server.core.service import ContextSelection, ContextService, SelectedFile
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import (
    CLASS_NAME,
    CLASS_NAME_ALIASES,
    DEPTH,
    LANGUAGE,
    PATH,
    TOKENIZER,
    read_depth,
    read_language,
    read_tokenizer,
    string_list,
)

MAX_TOKEN_BUDGET = 10_000_000
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000

_FILE = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "language": {"type": "string"},
        "level": {"type": "integer"},
        "declarations": string_list(),
        "tokens": {"type": "integer"},
        "source": {"type": "string"},
        "rule": {"type": "string"},
        "uses": {"type": "integer"},
        "symbol": {"type": ["string", "null"]},
        "lines": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["path", "language", "level", "declarations", "tokens"],
}
_OUTPUT = {
    "type": "object",
    "properties": {
        "target": _FILE,
        "depth": {"type": "integer"},
        "tokenizer": {"type": "string"},
        "tokenBudget": {"type": ["integer", "null"]},
        "dependencies": {"type": "array", "items": _FILE},
        "dependencyTokens": {"type": "integer"},
        "omitted": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "tokens": {"type": "integer"}},
                "required": ["path", "tokens"],
            },
        },
        "ambiguous": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "candidates": string_list()},
                "required": ["name", "candidates"],
            },
        },
        "otherMatches": string_list(),
        "page": PAGE_SCHEMA,
    },
    "required": [
        "target",
        "depth",
        "tokenizer",
        "tokenBudget",
        "dependencies",
        "dependencyTokens",
        "omitted",
        "ambiguous",
        "otherMatches",
        "page",
    ],
}
_FENCES = {"java": "java", "kotlin": "kotlin", "scala": "scala", "python": "python"}


def file_structure(item: SelectedFile) -> dict[str, Any]:
    """A selected file as structured content."""
    data: dict[str, Any] = {
        "path": item.path,
        "language": item.language,
        "level": item.level,
        "declarations": list(item.declarations),
        "tokens": item.tokens,
    }
    if item.source is not None:
        data["source"] = item.source
    if item.rule:
        data["rule"] = item.rule
        data["uses"] = item.uses
    if item.level == 0:
        data["symbol"] = item.symbol
        if item.lines is not None:
            data["lines"] = list(item.lines)
    return data


class FindContextTool:
    """Finds the project files a class depends on, nearest first, within a token budget."""

    def __init__(self, service: ContextService) -> None:
        self._service = service
        self._definition = ToolDefinition(
            name="find_context",
            description=(
                "Find the project files a class depends on, nearest first, optionally with "
                "their source within a token budget."
            ),
            input_schema=object_schema(
                {
                    "path": PATH,
                    "className": CLASS_NAME,
                    "language": LANGUAGE,
                    "depth": DEPTH,
                    "tokenBudget": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_TOKEN_BUDGET,
                        "description": (
                            "Keep only the highest-priority dependencies whose tokens fit, "
                            "e.g. 8000 (default: no budget)."
                        ),
                    },
                    "includeSource": {
                        "type": "boolean",
                        "default": False,
                        "description": "Include the dependencies' source text (default false).",
                    },
                    "tokenizer": TOKENIZER,
                    **Pagination.schema(DEFAULT_LIMIT, MAX_LIMIT, what="dependencies"),
                },
                required=("path", "className"),
            ),
            annotations=ToolAnnotations.read_only_tool(title="Find context"),
            output_schema=_OUTPUT,
            deprecated_aliases=CLASS_NAME_ALIASES,
        )

    @property
    def definition(self) -> ToolDefinition:
        """The tool's name, description, schemas and annotations."""
        return self._definition

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Select the class's dependencies and render them."""
        path = arguments.required_string("path")
        class_name = arguments.required_string("className")
        language = read_language(arguments)
        depth = read_depth(arguments)
        budget = (
            arguments.optional_bounded_int("tokenBudget", 1, 1, MAX_TOKEN_BUDGET)
            if arguments.is_given("tokenBudget")
            else None
        )
        include_source = arguments.optional_boolean("includeSource", False)
        tokenizer = read_tokenizer(arguments)
        pagination = Pagination.read(arguments, DEFAULT_LIMIT, MAX_LIMIT)
        index = self._service.index(
            path, language, context.check_cancelled, indexing_progress(context)
        )
        selection = self._service.select(
            index, class_name, depth, tokenizer, budget, include_source
        )
        page, text = fit_page(
            pagination.apply(selection.dependencies),
            lambda part: _markdown(class_name, selection, part, depth, tokenizer, budget),
        )
        structured = {
            "target": file_structure(selection.target),
            "depth": depth,
            "tokenizer": tokenizer,
            "tokenBudget": budget,
            "dependencies": [file_structure(item) for item in page.items],
            "dependencyTokens": selection.dependency_tokens,
            "omitted": [{"path": item.path, "tokens": item.tokens} for item in selection.omitted],
            "ambiguous": [
                {"name": a.name, "candidates": list(a.candidates)} for a in selection.ambiguous
            ],
            "otherMatches": list(selection.other_matches),
            "page": page.structured(),
        }
        return ToolResult.success(text, structured)


def _markdown(
    class_name: str,
    selection: ContextSelection,
    page: Page[SelectedFile],
    depth: int,
    tokenizer: str,
    budget: int | None,
) -> str:
    target = selection.target
    chosen = f", declaration `{target.symbol}`" if target.symbol else ""
    if target.lines is not None:
        chosen += f" at lines {target.lines[0]}-{target.lines[1]}"
    out = [
        f"# Context for `{class_name}`\n\n"
        f"Target: `{target.path}`{chosen} ({target.tokens} tokens).\n"
    ]
    if selection.other_matches:
        shown = ", ".join(f"`{m}`" for m in selection.other_matches)
        out.append(
            f"Also matched (not chosen; top-level before nested, main before test sources): "
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
    for item in page.items:
        if item.source is not None:
            fence = "`" * max(3, _longest_backtick_run(item.source) + 1)
            out.append(
                f"\n## `{item.path}`\n\n{fence}{_FENCES.get(item.language, '')}\n"
                f"{item.source.rstrip()}\n{fence}\n"
            )
    return "".join(out)


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return longest
