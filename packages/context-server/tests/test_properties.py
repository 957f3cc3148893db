"""Properties of the budget and the estimators over generated inputs, and concurrent use."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from conftest import CORPUS
from context_server.core.index import IndexCache
from context_server.core.service import ContextService
from context_server.core.tokens import budget_fill, heuristic_tokens, subword_tokens
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_common import AllowedPaths


@given(st.lists(st.integers(min_value=0, max_value=50), max_size=30), st.integers(1, 200))
def test_budget_fill_keeps_order_and_skips_only_what_cannot_fit(
    costs: list[int], budget: int
) -> None:
    items = list(enumerate(costs))
    kept, dropped = budget_fill(items, budget)
    assert sorted(kept + dropped) == [index for index, _ in items]
    assert kept == sorted(kept)
    assert dropped == sorted(dropped)
    assert sum(costs[i] for i in kept) <= budget
    for skipped in dropped:
        # when it was reached, what had been kept before it left too little room
        before = sum(costs[i] for i in kept if i < skipped)
        assert before + costs[skipped] > budget


@given(st.text(max_size=200), st.integers(1, 8))
def test_heuristic_is_utf16_length_over_cpt_rounded_up(text: str, cpt: int) -> None:
    units = len(text.encode("utf-16-le")) // 2
    assert heuristic_tokens(text, cpt) == -(-units // cpt)


@settings(max_examples=200)
@given(st.text(max_size=200))
def test_subword_is_additive_over_whitespace_separated_words(text: str) -> None:
    # whitespace costs nothing and ends a run, so a text costs the sum of its parts
    assert subword_tokens(text + " " + text) == 2 * subword_tokens(text)
    assert subword_tokens(text) <= len(text.encode("utf-16-le")) // 2


def test_concurrent_calls_share_one_cache_and_agree() -> None:
    service = ContextService(AllowedPaths([CORPUS]), IndexCache())

    def dependencies(name: str) -> list[str]:
        index = service.index(".")
        return [item.path for item in service.select(index, name, 2, "heuristic").dependencies]

    names = ["OrderService", "Invoice", "Renderer", "Accounts", "Audit"] * 4
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(dependencies, names))
    assert answers[:5] == answers[5:10] == answers[15:20]
    assert answers[0] == [
        "java/com/shop/model/Order.java",
        "java/com/shop/util/Strings.java",
        "java/com/shop/model/Customer.java",
        "java/com/shop/util/Money.java",
        "java/com/shop/model/LineItem.java",
    ]
