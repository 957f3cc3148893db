"""Pages that fit the answer cap: cut by whole items, never in the middle of one.

The MCP adapter cuts any text answer above :data:`mcp_common.markdown.DEFAULT_MAX_OUTPUT_CHARS`
in the middle. A tool that renders its page through :func:`fit_page` never reaches that cut:
when the requested page would be too long, it returns fewer whole items, and the page's
``nextOffset`` and notice then say exactly where the next page starts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from mcp_common import Page
from mcp_common.markdown import DEFAULT_MAX_OUTPUT_CHARS

T = TypeVar("T")


def fit_page(
    page: Page[T], render: Callable[[Page[T]], str], max_chars: int = DEFAULT_MAX_OUTPUT_CHARS
) -> tuple[Page[T], str]:
    """The longest prefix of ``page`` whose rendering is at most ``max_chars``, rendered.

    At least one item is kept, so paging always moves on (a single item longer than the
    cap is the one case the adapter still cuts).
    """
    text = render(page)
    if len(text) <= max_chars or len(page.items) <= 1:
        return page, text
    best: tuple[Page[T], str] | None = None
    low, high = 1, len(page.items) - 1
    while low <= high:
        middle = (low + high) // 2
        candidate = Page(page.items[:middle], page.total, page.offset, page.limit)
        rendered = render(candidate)
        if len(rendered) <= max_chars:
            best, low = (candidate, rendered), middle + 1
        else:
            high = middle - 1
    if best is None:
        single = Page(page.items[:1], page.total, page.offset, page.limit)
        return single, render(single)
    return best


def shortened_note(page: Page[T], what: str) -> str:
    """A sentence saying the page holds fewer items than asked to fit the cap, or ``""``."""
    asked = min(page.limit, max(page.total - page.offset, 0))
    if len(page.items) >= asked:
        return ""
    return (
        f"This page holds {len(page.items)} of the {asked} {what} asked for, to keep the "
        f"answer under {DEFAULT_MAX_OUTPUT_CHARS} characters; "
        f"pass offset={page.offset + len(page.items)} for the next ones.\n"
    )
