"""Parameter and output-schema pieces the four context tools share."""

from __future__ import annotations

from typing import Any

from mcp_common import ToolArguments

from context_server.core.languages import LANGUAGE_NAMES
from context_server.core.service import MAX_DEPTH, MIN_DEPTH
from context_server.core.tokens import TOKENIZERS

CLASS_NAME_ALIASES = {"class_name": "className"}

PATH = {
    "type": "string",
    "description": (
        "Project directory to scan, absolute or relative to the first allowed directory, "
        "e.g. ./my-project."
    ),
}
LANGUAGE = {
    "type": "string",
    "enum": list(LANGUAGE_NAMES),
    "default": "auto",
    "description": "Source language to index; auto (default) indexes every supported one.",
}
DEPTH = {
    "type": "integer",
    "minimum": MIN_DEPTH,
    "maximum": MAX_DEPTH,
    "default": 1,
    "description": "Levels of transitive dependencies to follow, 1 to 10 (default 1).",
}
CLASS_NAME = {
    "type": "string",
    "description": (
        "Class to start from: simple name, qualified name or file path, e.g. OrderService, "
        "com.shop.OrderService or src/com/shop/OrderService.java."
    ),
}
TOKENIZER = {
    "type": "string",
    "enum": list(TOKENIZERS),
    "default": "cl100k",
    "description": (
        "Token counter: cl100k (exact BPE, default), subword or heuristic (characters / 4)."
    ),
}


def read_depth(arguments: ToolArguments) -> int:
    """The ``depth`` argument, refused outside 1..10."""
    return arguments.optional_bounded_int("depth", 1, MIN_DEPTH, MAX_DEPTH)


def read_language(arguments: ToolArguments) -> str:
    """The ``language`` argument (``auto`` by default)."""
    return arguments.optional_enum("language", LANGUAGE_NAMES, "auto")


def read_tokenizer(arguments: ToolArguments) -> str:
    """The ``tokenizer`` argument (``cl100k`` by default)."""
    return arguments.optional_enum("tokenizer", TOKENIZERS, "cl100k")


def string_list() -> dict[str, Any]:
    """Schema of a list of strings."""
    return {"type": "array", "items": {"type": "string"}}


PROBLEMS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "reason": {"type": "string"}},
        "required": ["path", "reason"],
    },
}
