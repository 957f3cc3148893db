"""Transport-neutral tool results and the stable error codes a client can branch on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


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
    def success(cls, markdown: str, structured: dict[str, Any] | None = None) -> ToolResult:
        """A successful answer: Markdown text, plus structured content when the tool declares
        an output schema."""
        return cls(text=markdown, structured=structured)

    @classmethod
    def error(
        cls,
        message: str | None,
        code: ErrorCode | str = ErrorCode.FAILED,
        structured: dict[str, Any] | None = None,
    ) -> ToolResult:
        """A failed answer. A blank message becomes ``Unknown error`` so a client never
        receives an empty or null failure text."""
        text = message.strip() if message and message.strip() else "Unknown error"
        return cls(text=text, structured=structured, is_error=True, code=ErrorCode(code))


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
