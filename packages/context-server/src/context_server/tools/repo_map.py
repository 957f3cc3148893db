"""The ``repo_map`` tool: the repository's most central files and their declarations, in budget."""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    Arguments,
    Between,
    Int,
    OneOf,
    Str,
    StrList,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
)
from mcp_common.markdown import DEFAULT_MAX_OUTPUT_CHARS
from pydantic import Field

from context_server.core.languages import LANGUAGE_NAMES
from context_server.core.repo_map import MAP_DETAILS
from context_server.core.service import ContextService
from context_server.core.tokens import TOKENIZERS
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import Problem
from context_server.tools.settle import settled

DEFAULT_TOKEN_BUDGET = 1024
# The map's text must stay under the adapter's answer cap whatever the tokenizer counts.
MAX_TOKEN_BUDGET = 16_000


class RepoMapArguments(Arguments):
    """The project, the names to rank it towards, and the budget of the map."""

    path: Str = Field(
        description="Project directory to map, absolute or relative to the first allowed "
        "directory, e.g. ./my-project."
    )
    language: Annotated[Str, OneOf(LANGUAGE_NAMES)] = Field(
        "auto",
        description="Source language to index; auto (default) indexes every supported one.",
    )
    token_budget: Annotated[Int, Between(1, MAX_TOKEN_BUDGET)] = Field(
        DEFAULT_TOKEN_BUDGET,
        description="The whole answer's text costs at most this many tokens "
        f"(default {DEFAULT_TOKEN_BUDGET}).",
    )
    focus: StrList = Field(
        [],
        description='Class names or paths being worked on, e.g. ["OrderService", '
        '"src/shop/"]: the ranking favours them and what they are connected to.',
    )
    detail: Annotated[Str, OneOf(MAP_DETAILS)] = Field(
        "declarations",
        description="What each file's entry shows: declarations (default): its top-level "
        "declarations' signatures; signatures: every member's signature with doc "
        "summaries, no bodies; full: its whole text. Fewer files fit as entries grow.",
    )
    tokenizer: Annotated[Str, OneOf(TOKENIZERS)] = Field(
        "cl100k",
        description="Token counter: cl100k (exact BPE, default), subword or heuristic "
        "(characters / 4).",
    )


class MapFile(StructuredResult):
    """A file of the map: its PageRank (the ranks of all files sum to 1) and the
    signatures of its top-level declarations."""

    path: str
    language: str
    rank: float
    symbols: list[str]


class OtherLanguageFiles(StructuredResult):
    """Files of a programming language without a supported grammar: never parsed."""

    language: str
    files: int
    examples: list[str]


class RepoMapAnswer(StructuredResult):
    """The answer of ``repo_map``: the files shown, most central first, and the cost."""

    root: str
    tokenizer: str
    detail: str
    token_budget: int
    tokens: int
    ranked_files: int
    focus: list[str]
    files: list[MapFile]
    unsupported: list[Problem]
    unsupported_languages: list[OtherLanguageFiles]


DEFINITION = ToolDefinition(
    name="repo_map",
    description=(
        "Map a repository: its most central source files (PageRank over the dependency "
        "graph, optionally focused on given classes or paths) with their declarations' "
        "signatures (or every member's signature, or the whole text), cut at whole files to "
        "fit a token budget."
    ),
    arguments=RepoMapArguments,
    annotations=ToolAnnotations.read_only_tool(title="Repository map"),
    result=RepoMapAnswer,
)


class RepoMapTool:
    """Ranks a project's files by centrality and lists the top ones within a budget."""

    definition = DEFINITION

    def __init__(self, service: ContextService) -> None:
        self._service = service

    @settled
    def call(self, arguments: RepoMapArguments, context: ToolContext) -> ToolResult:
        """Index the project, rank its files and render the map."""
        index = self._service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        repo_map = self._service.repo_map(
            index,
            arguments.token_budget,
            arguments.focus,
            arguments.tokenizer,
            context.check_cancelled,
            DEFAULT_MAX_OUTPUT_CHARS,
            arguments.detail,
        )
        answer = RepoMapAnswer(
            root=self._service.allowed.display(index.root),
            tokenizer=arguments.tokenizer,
            detail=arguments.detail,
            token_budget=arguments.token_budget,
            tokens=repo_map.tokens,
            ranked_files=repo_map.ranked,
            focus=list(repo_map.focus),
            files=[
                MapFile(
                    path=entry.path,
                    language=entry.language,
                    rank=round(entry.rank, 6),
                    symbols=list(entry.symbols),
                )
                for entry in repo_map.entries
            ],
            unsupported=[Problem(path=p.path, reason=p.reason) for p in repo_map.unsupported],
            unsupported_languages=[
                OtherLanguageFiles(
                    language=other.language, files=other.files, examples=list(other.examples)
                )
                for other in repo_map.other_languages
            ],
        )
        return ToolResult.success(repo_map.text, answer)
