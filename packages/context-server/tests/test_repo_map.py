"""repo_map: PageRank by hand, budgets counted on the final text, focus, determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from conftest import call, tools_for
from context_server.core.repo_map import pagerank
from context_server.core.tokens import counter

Project = Callable[[Mapping[str, str | bytes]], Path]

SHOP = {
    "shop/Money.java": "package shop;\n/** An amount. */\npublic final class Money {\n"
    "  public Money plus(Money other) { return this; }\n}\n",
    "shop/Order.java": "package shop;\n@Deprecated\npublic class Order {\n  Money total;\n"
    "  Money tax() { return total.plus(total); }\n}\n",
    "shop/Cart.java": "package shop;\npublic class Cart { Order order; Money sum; }\n",
    "shop/Invoice.java": "package shop;\npublic class Invoice { Order order; Money due; }\n",
    "shop/report/Report.java": "package shop.report;\nimport shop.Invoice;\n"
    "public class Report { Invoice invoice; }\n",
    "tools/helpers.py": "def shout(text: str) -> str:\n    return text.upper()\n",
    "Blob.java": b"\x00\x00\x01",
}


def test_pagerank_matches_the_hand_computed_ranks() -> None:
    # A->B, A->C, B->C, C->A with damping 0.85 solves to A=.387792, B=.214812, C=.397400.
    ranks = pagerank(
        ["A", "B", "C"], {"A": [("B", 1.0), ("C", 1.0)], "B": [("C", 1.0)], "C": [("A", 1.0)]}
    )
    assert ranks == pytest.approx({"A": 0.387792, "B": 0.214812, "C": 0.397400}, abs=1e-5)
    # B has no out-edge: its walker jumps uniformly, so A = .075 + .425 B and A + B = 1.
    dangling = pagerank(["A", "B"], {"A": [("B", 1.0)]})
    assert dangling == pytest.approx({"A": 0.5 / 1.425, "B": 1 - 0.5 / 1.425}, abs=1e-9)
    # Personalised towards A: every jump lands on A, so B = .85 A and A = 1 / 1.85.
    focused = pagerank(["A", "B"], {"A": [("B", 1.0)]}, {"A": 1.0})
    assert focused == pytest.approx({"A": 1 / 1.85, "B": 0.85 / 1.85}, abs=1e-9)
    assert pagerank([], {}) == {}


def test_map_ranks_the_most_used_class_first_with_signatures(project: Project) -> None:
    root = project(SHOP)
    result = call(tools_for(root)["repo_map"], {"path": "."})
    assert not result.is_error, result.text
    structured = result.structured
    assert structured is not None
    paths = [item["path"] for item in structured["files"]]
    assert paths[:2] == ["shop/Money.java", "shop/Order.java"]
    assert set(paths) == {p for p in SHOP if p != "Blob.java"}
    ranks = [item["rank"] for item in structured["files"]]
    assert ranks == sorted(ranks, reverse=True)
    assert structured["files"][0]["symbols"] == ["public final class Money"]
    assert structured["files"][1]["symbols"] == ["public class Order"]
    assert "## `shop/Money.java`\n- `public final class Money`\n" in result.text
    assert "- `def shout(text: str) -> str`\n" in result.text
    assert structured["unsupported"] == [
        {"path": "Blob.java", "reason": "skipped: binary content in a source file"}
    ]
    assert structured["tokens"] == counter("cl100k")(result.text) <= 1024
    assert structured["rankedFiles"] == 6


@pytest.mark.parametrize("tokenizer", ["cl100k", "subword", "heuristic"])
def test_every_budget_is_kept_exactly_on_the_final_text(project: Project, tokenizer: str) -> None:
    root = project(SHOP)
    tool = tools_for(root)["repo_map"]
    count = counter(tokenizer)
    shown = []
    for budget in range(60, 260, 7):
        result = call(tool, {"path": ".", "tokenBudget": budget, "tokenizer": tokenizer})
        if result.is_error:
            assert "too small for one entry" in result.text
            continue
        assert result.structured is not None
        assert count(result.text) == result.structured["tokens"] <= budget
        shown.append(len(result.structured["files"]))
    assert shown == sorted(shown)
    assert shown[-1] == 6


def test_too_small_budget_names_the_smallest_entry_cost(project: Project) -> None:
    root = project(SHOP)
    tool = tools_for(root)["repo_map"]
    result = call(tool, {"path": ".", "tokenBudget": 10})
    assert result.is_error
    assert result.code == "invalid_argument"
    assert "tokenBudget 10 is too small for one entry of the map: the smallest," in result.text
    needed = int(result.text.split(" needs ")[1].split(" ")[0])
    assert not call(tool, {"path": ".", "tokenBudget": needed}).is_error
    assert call(tool, {"path": ".", "tokenBudget": needed - 1}).is_error


def test_focus_moves_the_focused_files_up(project: Project) -> None:
    root = project(SHOP)
    tool = tools_for(root)["repo_map"]
    plain = call(tool, {"path": "."}).structured
    focused = call(tool, {"path": ".", "focus": ["Report", "tools/"]}).structured
    assert plain is not None
    assert focused is not None
    before = [item["path"] for item in plain["files"]]
    after = [item["path"] for item in focused["files"]]
    assert after.index("shop/report/Report.java") < before.index("shop/report/Report.java")
    assert after.index("tools/helpers.py") < before.index("tools/helpers.py")
    assert focused["focus"] == ["Report", "tools/"]


def test_map_is_identical_across_processes_with_different_hash_seeds() -> None:
    script = (
        "import json, sys\n"
        "from conftest import call, tools_for, CORPUS\n"
        "r = call(tools_for(CORPUS)['repo_map'], {'path': str(CORPUS), 'tokenBudget': 600})\n"
        "print(json.dumps([r.text, r.structured]))\n"
    )
    outputs = []
    for seed in ("1", "2"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=Path(__file__).parent,
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0][1]["files"]


def test_outside_path_is_refused(project: Project, tmp_path: Path) -> None:
    root = project(SHOP)
    result = call(tools_for(root)["repo_map"], {"path": str(tmp_path)})
    assert result.is_error
    assert "is outside the allowed directories" in result.text


def test_a_changed_file_changes_the_warm_map(project: Project) -> None:
    root = project(SHOP)
    tool = tools_for(root)["repo_map"]
    before = call(tool, {"path": "."}).structured
    assert before is not None
    assert before["files"][0]["path"] == "shop/Money.java"
    # Money's users all move to Cart: the graph changes, so the ranks are recomputed.
    for name in ("Order", "Invoice"):
        path = root / "shop" / f"{name}.java"
        path.write_text(
            f"package shop;\npublic class {name} {{ Cart cart; Cart other; }}\n", encoding="utf-8"
        )
        os.utime(path, ns=(1, 10**18))
    money = root / "shop" / "Money.java"
    money.write_text("package shop;\npublic final class Money implements Cloneable { }\n")
    after = call(tool, {"path": "."}).structured
    assert after is not None
    assert after["files"][0]["path"] == "shop/Cart.java"
    symbols = {item["path"]: item["symbols"] for item in after["files"]}
    assert symbols["shop/Money.java"] == ["public final class Money implements Cloneable"]
