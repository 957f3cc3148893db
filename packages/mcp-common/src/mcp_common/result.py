"""Transport-neutral tool results and the stable error codes a client can branch on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ErrorCode(StrEnum):
    """Stable, machine-readable words for why a tool call failed."""

    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    ACCESS_DENIED = "access_denied"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    UNSUPPORTED = "unsupported"
    CONFLICT = "conflict"
    FAILED = "failed"


class StructuredResult(BaseModel):
    """Base of every tool's structured-result model: snake_case in Python, lowerCamelCase on
    the wire. The tool's ``outputSchema`` is generated from the subclass, and its Markdown is
    rendered from the same instance."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    def to_wire(self) -> dict[str, Any]:
        """The instance as ``structuredContent``: JSON types, wire names."""
        return self.model_dump(mode="json", by_alias=True)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returns: Markdown for the model, optional structured data for programs.

    Build one with :meth:`success` or :meth:`error`; never construct an error by hand.
    """

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False
    code: ErrorCode | None = None

    @classmethod
    def success(cls, markdown: str, structured: StructuredResult | None = None) -> ToolResult:
        """A successful answer: Markdown text, plus the structured result when the tool
        declares a result model."""
        return cls(text=markdown, structured=structured.to_wire() if structured else None)

    @classmethod
    def error(
        cls,
        message: str | None,
        code: ErrorCode | str = ErrorCode.FAILED,
        structured: StructuredResult | None = None,
    ) -> ToolResult:
        """A failed answer, with the tool's structured result when it has one (a partial
        report, say). A blank message becomes ``Unknown error`` so a client never receives an
        empty or null failure text."""
        text = message.strip() if message and message.strip() else "Unknown error"
        wire = structured.to_wire() if structured else None
        return cls(text=text, structured=wire, is_error=True, code=ErrorCode(code))


class ToolError(Exception):
    """Raised by tools and shared helpers for an expected failure with a stable code.

    The adapter turns it (like any exception) into an error result; the code survives.
    """

    def __init__(self, message: str, code: ErrorCode | str = ErrorCode.FAILED) -> None:
        super().__init__(message)
        self.message = message
        self.code = ErrorCode(code)

    def __str__(self) -> str:
        return self.message


class ToolCancelledError(ToolError):
    """Raised inside a tool when the client cancelled the call; the scan stops there."""

    def __init__(self, message: str = "the call was cancelled by the client") -> None:
        super().__init__(message, ErrorCode.CANCELLED)
