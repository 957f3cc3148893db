"""The ``find_context`` tool: the files a class depends on, in priority order, in budget."""

from __future__ import annotations

from typing import Any

from mcp_common import (
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    guard_output,
    markdown_table,
    object_schema,
)

from context_server.core.service import ContextSelection, ContextService, SelectedFile
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

_FILE = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "language": {"type": "string"},
        "level": {"type": "integer"},
        "declarations": string_list(),
        "tokens": {"type": "integer"},
        "source": {"type": "string"},
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
        "omitted": string_list(),
        "ambiguous": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "candidates": string_list()},
                "required": ["name", "candidates"],
            },
        },
        "otherMatches": string_list(),
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
        index = self._service.index(
            path, language, context.check_cancelled, indexing_progress(context)
        )
        selection = self._service.select(
            index, class_name, depth, tokenizer, budget, include_source
        )
        structured = {
            "target": file_structure(selection.target),
            "depth": depth,
            "tokenizer": tokenizer,
            "tokenBudget": budget,
            "dependencies": [file_structure(item) for item in selection.dependencies],
            "dependencyTokens": selection.dependency_tokens,
            "omitted": [item.path for item in selection.omitted],
            "ambiguous": [
                {"name": a.name, "candidates": list(a.candidates)} for a in selection.ambiguous
            ],
            "otherMatches": list(selection.other_matches),
        }
        return ToolResult.success(
            guard_output(
                _markdown(class_name, selection, depth, tokenizer, budget),
                levers="a tokenBudget, a smaller depth, or includeSource=false",
            ),
            structured,
        )


def _markdown(
    class_name: str,
    selection: ContextSelection,
    depth: int,
    tokenizer: str,
    budget: int | None,
) -> str:
    target = selection.target
    out = [f"# Context for `{class_name}`\n\nTarget: `{target.path}` ({target.tokens} tokens).\n"]
    if selection.other_matches:
        shown = ", ".join(f"`{m}`" for m in selection.other_matches)
        out.append(f"Also matched (not chosen; first by sorted path wins): {shown}.\n")
    if not selection.dependencies and not selection.omitted:
        out.append(f"\nNo project dependencies within depth {depth}.\n")
    if selection.dependencies:
        budget_text = f" of a {budget} token budget" if budget is not None else ""
        out.append(
            f"\n{len(selection.dependencies)} dependencies, nearest first, "
            f"{selection.dependency_tokens} {tokenizer} tokens{budget_text}:\n\n"
        )
        out.append(
            markdown_table(
                ("#", "File", "Level", "Tokens", "Declares"),
                [
                    (n, item.path, item.level, item.tokens, ", ".join(item.declarations))
                    for n, item in enumerate(selection.dependencies, start=1)
                ],
            )
        )
    if selection.omitted and not selection.dependencies:
        first = selection.omitted[0]
        out.append(
            f"\nNo dependency fits the {budget} token budget: the nearest, `{first.path}`, "
            f"alone needs {first.tokens} {tokenizer} tokens.\n"
        )
    if selection.omitted:
        out.append(
            f"\nLeft out to fit the budget ({len(selection.omitted)}, in priority order): "
            + ", ".join(f"`{item.path}` ({item.tokens})" for item in selection.omitted)
            + "\n"
        )
    for ambiguity in selection.ambiguous:
        out.append(
            f"\nNot resolved: `{ambiguity.name}` is ambiguous between "
            + ", ".join(f"`{c}`" for c in ambiguity.candidates)
            + "; import it explicitly to resolve it.\n"
        )
    for item in selection.dependencies:
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
