"""Argument and result pieces the context tools share."""

from __future__ import annotations

from typing import Annotated

from mcp_common import Arguments, Between, Deprecated, Int, OneOf, Str, StructuredResult
from pydantic import Field

from context_server.core.languages import LANGUAGE_NAMES
from context_server.core.service import MAX_DEPTH, MIN_DEPTH
from context_server.core.tokens import TOKENIZERS


class ProjectArguments(Arguments):
    """The project every context tool reads, and which of its languages to index."""

    path: Str = Field(
        description="Project directory to scan, absolute or relative to the first allowed "
        "directory, e.g. ./my-project."
    )
    language: Annotated[Str, OneOf(LANGUAGE_NAMES)] = Field(
        "auto",
        description="Source language to index; auto (default) indexes every supported one.",
    )
    depth: Annotated[Int, Between(MIN_DEPTH, MAX_DEPTH)] = Field(
        1, description="Levels of transitive dependencies to follow, 1 to 10 (default 1)."
    )


class ClassArguments(ProjectArguments):
    """A project, a class in it and the tokenizer that counts its context."""

    class_name: Annotated[Str, Deprecated("class_name")] = Field(
        description="Class to start from: simple name, qualified name or file path, e.g. "
        "OrderService, com.shop.OrderService or src/com/shop/OrderService.java; a nested "
        "type as Outer.Inner; a method or field as OrderService#place or OrderService.place."
    )
    tokenizer: Annotated[Str, OneOf(TOKENIZERS)] = Field(
        "cl100k",
        description="Token counter: cl100k (exact BPE, default), subword or heuristic "
        "(characters / 4).",
    )


class Problem(StructuredResult):
    """A file the index skipped, and why."""

    path: str
    reason: str
