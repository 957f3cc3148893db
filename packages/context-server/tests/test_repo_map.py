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


def test_detail_shows_each_entry_as_declarations_signatures_or_whole_text(
    project: Project,
) -> None:
    root = project(SHOP)
    tool = tools_for(root)["repo_map"]
    texts = {}
    for detail in ("declarations", "signatures", "full"):
        result = call(tool, {"path": ".", "tokenBudget": 4096, "detail": detail})
        assert not result.is_error, result.text
        structured = result.structured
        assert structured is not None
        assert structured["detail"] == detail
        assert structured["tokens"] == counter("cl100k")(result.text) <= 4096
        # The ranking does not depend on what an entry shows.
        assert [item["path"] for item in structured["files"]][:2] == [
            "shop/Money.java",
            "shop/Order.java",
        ]
        texts[detail] = result.text
    assert "each with its top-level declarations," in texts["declarations"]
    assert "## `shop/Money.java`\n- `public final class Money`\n" in texts["declarations"]
    assert (
        "## `shop/Money.java`\n\n```java\npackage shop;\n// An amount.\n"
        "public final class Money\n    public Money plus(Money other)\n```\n"
    ) in texts["signatures"]
    assert "return this" not in texts["signatures"]
    assert "each with its signatures (no bodies)," in texts["signatures"]
    assert "```java\n" + SHOP["shop/Money.java"] + "```\n" in texts["full"]  # type: ignore[operator]
    assert "```python\ndef shout(text: str) -> str:\n    return text.upper()\n```" in texts["full"]
    bad = call(tool, {"path": ".", "detail": "bodies"})
    assert bad.is_error
    assert "declarations" in bad.text


def test_too_small_budget_for_full_entries_names_the_smallest_full_entry(
    project: Project,
) -> None:
    root = project(SHOP)
    tool = tools_for(root)["repo_map"]
    short = call(tool, {"path": ".", "tokenBudget": 10, "detail": "signatures"})
    full = call(tool, {"path": ".", "tokenBudget": 10, "detail": "full"})
    assert short.code == full.code == "invalid_argument"
    needed = int(full.text.split(" needs ")[1].split(" ")[0])
    assert int(short.text.split(" needs ")[1].split(" ")[0]) <= needed
    assert not call(tool, {"path": ".", "tokenBudget": needed, "detail": "full"}).is_error


def test_files_in_languages_without_a_grammar_are_named_never_fatal(project: Project) -> None:
    others = {
        "native/io.c": "int main(void) { return 0; }\n",
        "native/io.h": "int main(void);\n",
        "native/more.c": "int more(void) { return 1; }\n",
        "scripts/deploy.rb": "puts 'hi'\n",
        "README.md": "# Shop\n",
    }
    root = project({**SHOP, **others})
    tool = tools_for(root)["repo_map"]
    result = call(tool, {"path": "."})
    assert not result.is_error, result.text
    assert result.structured is not None
    assert result.structured["unsupportedLanguages"] == [
        {"language": "C", "files": 2, "examples": ["native/io.c", "native/more.c"]},
        {"language": "C/C++", "files": 1, "examples": ["native/io.h"]},
        {"language": "Ruby", "files": 1, "examples": ["scripts/deploy.rb"]},
    ]
    assert (
        "Not mapped, no supported grammar: C 2, C/C++ 1, Ruby 1 files "
        "(listed in `unsupportedLanguages`)." in result.text
    )
    assert len(result.structured["files"]) == 6
    # A project with nothing supported is an empty map naming what is there.
    only = root / "native"
    empty = call(tools_for(only)["repo_map"], {"path": "."})
    assert not empty.is_error, empty.text
    assert empty.structured is not None
    assert empty.structured["files"] == []
    assert empty.structured["rankedFiles"] == 0
    assert "0 of 0 source files" in empty.text
    assert [o["language"] for o in empty.structured["unsupportedLanguages"]] == ["C", "C/C++"]
    tiny = call(tools_for(only)["repo_map"], {"path": ".", "tokenBudget": 5})
    assert tiny.code == "invalid_argument"
    assert "too small for the map's header alone" in tiny.text


def _ranked(root: Path) -> list[str]:
    from conftest import service_for
    from context_server.core.repo_map import rank_files

    service = service_for(root)
    return [path for path, _ in rank_files(service.index(str(root)))]


def test_library_code_ranks_above_tests_examples_benchmarks_and_docs(project: Project) -> None:
    helper_users = {
        f"tests/test_{n}.py": "from tests.helpers import make\n\n\ndef test():\n    make()\n"
        for n in range(6)
    }
    root = project(
        {
            "shop/__init__.py": "",
            "shop/core.py": "class Basket:\n    pass\n",
            "shop/api.py": "from shop.core import Basket\n\n\ndef open_basket():\n"
            "    return Basket()\n",
            "tests/__init__.py": "",
            "tests/helpers.py": "from shop.core import Basket\n\n\ndef make():\n"
            "    return Basket()\n",
            **helper_users,
            "examples/demo.py": "from shop.api import open_basket\n\nopen_basket()\n",
            "benchmarks/bench_api.py": "from shop.api import open_basket\n\nopen_basket()\n",
            "docs/conf.py": "project = 'shop'\n",
        }
    )
    ranked = _ranked(root)
    library = ["shop/core.py", "shop/api.py", "shop/__init__.py"]
    # the test helper every test uses has the highest PageRank, yet ranks after the library
    assert sorted(ranked[:3]) == sorted(library)
    assert set(ranked[3:]) == {
        "tests/__init__.py",
        "tests/helpers.py",
        *helper_users,
        "examples/demo.py",
        "benchmarks/bench_api.py",
        "docs/conf.py",
    }


def test_examples_in_a_folder_the_go_tool_skips_rank_after_the_library(
    project: Project,
) -> None:
    examples = {
        f"_examples/app{n}/main.go": 'package main\n\nimport (\n\t"example.com/m"\n'
        '\t"example.com/m/_examples/shared"\n)\n\n'
        "func main() { m.Route(); shared.Article() }\n"
        for n in range(5)
    }
    root = project(
        {
            "go.mod": "module example.com/m\n",
            "mux.go": "package m\n\nfunc Route() { walk() }\n",
            "tree.go": "package m\n\nfunc walk() {}\n",
            "_examples/shared/data.go": "package shared\n\nfunc Article() {}\n",
            **examples,
        }
    )
    ranked = _ranked(root)
    # the example's shared data has more users than the tree, yet ranks after the library
    assert ranked[:2] == ["mux.go", "tree.go"]
    assert set(ranked[2:]) == {"_examples/shared/data.go", *examples}


def test_a_cargo_build_script_ranks_after_the_library(project: Project) -> None:
    users = {
        f"src/part{n}.rs": "use crate::core::Item;\n\npub fn f(_i: Item) {}\n" for n in range(4)
    }
    root = project(
        {
            "Cargo.toml": '[package]\nname = "kit"\n',
            # a crate root of its own (public by nature), yet build logic
            "build.rs": "fn main() {}\n",
            "src/lib.rs": "mod core;\n" + "".join(f"pub mod part{n};\n" for n in range(4)),
            "src/core.rs": "pub struct Item;\n",
            # a module that happens to be called build is library code
            "src/build.rs": "pub fn build() {}\n",
            **users,
        }
    )
    ranked = _ranked(root)
    assert ranked[-1] == "build.rs"
    assert "src/build.rs" in ranked[:-1]


def test_public_api_ranks_above_internal_packages(project: Project) -> None:
    users = {
        f"api/part{n}.go": 'package api\n\nimport "example.com/m/internal/util"\n\n'
        f"func P{n}() {{ util.Help() }}\n"
        for n in range(5)
    }
    root = project(
        {
            "go.mod": "module example.com/m\n",
            "internal/util/util.go": "package util\n\nfunc Help() {}\n",
            "api/client.go": "package api\n\ntype Client struct{}\n",
            **users,
        }
    )
    ranked = _ranked(root)
    # the internal helper is the most used, but it is no part of the public API
    assert ranked[-1] == "internal/util/util.go"


def test_a_large_central_file_shows_less_of_itself_instead_of_being_skipped(
    project: Project,
) -> None:
    big = "".join(f"class Part{n:02d}:\n    pass\n\n\n" for n in range(40))
    users = {f"app/use{n}.py": "from app.big import Part00\n\nX = Part00()\n" for n in range(4)}
    root = project({"app/__init__.py": "", "app/big.py": big, **users})
    result = call(tools_for(root)["repo_map"], {"path": ".", "tokenBudget": 90})
    assert not result.is_error, result.text
    assert result.structured is not None
    first = result.structured["files"][0]
    assert first["path"] == "app/big.py"
    # its first declarations and a count of the rest: brief, but there
    assert "## `app/big.py`\n- `class Part00`\n- `class Part01`\n- `class Part02`\n" in (
        result.text
    )
    assert "- … 37 more\n" in result.text


def test_a_private_python_module_the_package_does_not_export_ranks_last(
    project: Project,
) -> None:
    users = {
        f"shop/part{n}.py": "from shop._compat import text\n\n\ndef part():\n    return text()\n"
        for n in range(4)
    }
    root = project(
        {
            "shop/__init__.py": "from shop._core import Basket\nfrom shop.part0 import part\n",
            "shop/_core.py": "from shop._compat import text\n\n\nclass Basket:\n"
            "    label = text()\n",
            "shop/_compat.py": "def text():\n    return ''\n",
            **users,
        }
    )
    ranked = _ranked(root)
    # _core is re-exported by the package: public API; _compat is not, however used
    assert ranked[-1] == "shop/_compat.py"
    assert ranked.index("shop/_core.py") < ranked.index("shop/_compat.py")


@pytest.mark.parametrize("focus", [(), ("Order",)])
def test_an_edit_leaving_the_graph_as_it_was_keeps_the_ranking(
    project: Project, monkeypatch: pytest.MonkeyPatch, focus: tuple[str, ...]
) -> None:
    """The ranking is computed again only when the dependency graph (or what the focus
    designates) changed, and is then the ranking a new process computes."""
    from conftest import service_for
    from context_server.core import repo_map

    root = project(SHOP)
    service = service_for(root)
    computed: list[object] = []
    original = repo_map._ranking

    def counting(*args: object) -> list[tuple[str, float]]:
        computed.append(args)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(repo_map, "_ranking", counting)

    def ranked() -> list[str]:
        index = service.index(str(root))
        built = service.repo_map(index, 4000, focus)
        return [entry.path for entry in built.entries]

    def fresh() -> list[str]:
        index = service_for(root).index(str(root))
        return [path for path, _ in repo_map.rank_files(index, focus)]

    first = ranked()
    assert len(computed) == 1
    # a body edited, a comment added: the same edges, the same ranking, not computed again
    order = root / "shop/Order.java"
    order.write_text(order.read_text().replace("return total", "/* twice */ return total"))
    assert ranked() == first
    assert len(computed) == 1
    # a new use of Cart: the graph changed, the ranking is computed again, as a new process would
    report = root / "shop/report/Report.java"
    report.write_text(
        "package shop.report;\nimport shop.Invoice;\nimport shop.Cart;\n"
        "public class Report { Invoice invoice; Cart a; Cart b; Cart c; }\n"
    )
    again = ranked()
    assert len(computed) == 2
    assert again == [path for path in fresh() if path in again]
    assert again != first


def test_rankings_kept_per_focus_are_bounded(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client asking for many focuses cannot make the server keep a ranking for each: the
    most recently used are kept, the others computed again when asked for."""
    from conftest import service_for
    from context_server.core import repo_map

    monkeypatch.setattr(repo_map, "KEPT_RANKINGS", 3)
    root = project(SHOP)
    service = service_for(root)
    computed: list[object] = []
    original = repo_map._ranking

    def counting(*args: object) -> list[tuple[str, float]]:
        computed.append(args)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(repo_map, "_ranking", counting)
    index = service.index(str(root))
    focuses = [(), ("shop/Order.java",), ("shop/Cart.java",), ("shop/report/Report.java",)]
    for focus in focuses[:3]:
        service.repo_map(index, 4000, focus)
    service.repo_map(index, 4000, ())  # used again: the most recent
    assert len(computed) == 3
    service.repo_map(index, 4000, focuses[3])  # a fourth: the least recently used goes
    assert len(computed) == 4
    service.repo_map(index, 4000, ())
    assert len(computed) == 4
    service.repo_map(index, 4000, focuses[1])
    assert len(computed) == 5
