"""Token counters to the reference definitions, and the budget prefix."""

from __future__ import annotations

import pytest
from context_server.core.tokens import (
    budget_fill,
    cl100k_tokens,
    counter,
    heuristic_tokens,
    subword_tokens,
)


@pytest.mark.parametrize("estimate", [heuristic_tokens, subword_tokens])
def test_common_rules(estimate: object) -> None:
    assert callable(estimate)
    assert estimate(None) == 0
    assert estimate("") == 0
    assert estimate("a") == 1
    assert estimate("abcd") == 1
    assert estimate("abcde") == 2
    assert estimate("abcde", 2) == 3
    for bad in (0, -1):
        with pytest.raises(ValueError, match="must be positive"):
            estimate("a", bad)


def test_heuristic_counts_utf16_units() -> None:
    assert heuristic_tokens("😀😀") == 1  # four code units
    assert heuristic_tokens("😀😀a") == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b c", 3),
        ("a  b\tc\n", 3),
        ("a.b", 3),
        ("foo(bar)", 4),
        ("a=b+c;", 6),
        ("foo_bar", 2),
        ("abc123", 2),
        ("(a)", 3),
        (".a", 2),
        ("+-*/", 4),
        ("café", 1),
        ("foo = bar;", 4),
        ("a\u00a0b", 3),
        ("x²", 2),
        ("e\u0301", 2),
        ("a\u0085b", 3),
        ("a\u2028b", 2),
        ("😀", 2),
        ("𝒜bc", 3),
    ],
)
def test_subword_reference_values(text: str, expected: int) -> None:
    assert subword_tokens(text) == expected


def test_subword_with_three_characters_per_token() -> None:
    assert subword_tokens("abcdefg", 3) == 3


def test_cl100k_is_exact_and_offline() -> None:
    assert cl100k_tokens("hello world") == 2
    assert cl100k_tokens("") == 0
    # special-token text in a source file is counted as text, never refused
    assert cl100k_tokens("<|endoftext|>") > 1


def test_unknown_tokenizer_is_refused() -> None:
    with pytest.raises(ValueError, match="cl100k, subword, heuristic"):
        counter("gpt2")


def test_budget_fills_in_priority_order_skipping_what_does_not_fit() -> None:
    assert budget_fill([("a", 2), ("b", 2), ("c", 2)], 4) == (["a", "b"], ["c"])
    # a large item does not keep the smaller ones after it out
    assert budget_fill([("a", 1), ("b", 5), ("c", 1)], 3) == (["a", "c"], ["b"])
    assert budget_fill([("big", 10726), ("x", 900), ("y", 7000)], 8000) == (["x", "y"], ["big"])
    assert budget_fill([("a", 1), ("b", 1)], 100) == (["a", "b"], [])
    assert budget_fill([("a", 5)], 2) == ([], ["a"])
    assert budget_fill([("a", 3), ("z", 0)], 3) == (["a", "z"], [])
    with pytest.raises(ValueError, match="budget must be positive"):
        budget_fill([("a", 1)], 0)
