"""detail=signatures: bodies and licence headers dropped, signatures and doc summaries kept."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from conftest import call, tools_for
from context_server.core.languages import LANGUAGES
from context_server.core.outline import render_signatures
from context_server.core.tokens import cl100k_tokens

Project = Callable[[Mapping[str, str | bytes]], Path]

LICENCE = "/*\n * Copyright 2024 Example Corp.\n * Licensed under the Apache License 2.0.\n */\n"


def _java_method(number: int) -> str:
    return (
        f"  /**\n   * Computes part {number} of the ledger. Rounds half up.\n   *\n"
        f"   * @param entries the entries to fold\n   * @return the folded total\n   */\n"
        f"  public long part{number}(java.util.List<Long> entries) {{\n"
        f"    long total = 0;\n    for (Long entry : entries) {{\n"
        f"      if (entry == null || entry < {number}) {{\n        continue;\n      }}\n"
        f"      total += entry * {number} + (total % 7);\n    }}\n"
        f"    return Math.max(total, {number}L);\n  }}\n\n"
    )


LEDGER = (
    LICENCE + "package shop.books;\n\nimport java.util.List;\nimport java.util.Map;\n\n"
    "/** A ledger of entries. Thread-safe. */\npublic class Ledger {\n"
    "  /** The entries by account. */\n  private final Map<String, Long> byAccount = "
    "new java.util.HashMap<>();\n\n" + "".join(_java_method(n) for n in range(1, 7)) + "}\n"
)
REPORT = "package shop.books;\npublic class Report { Ledger ledger; }\n"


def test_signatures_keep_declarations_and_drop_bodies_and_licence() -> None:
    java = next(lang for lang in LANGUAGES if lang.name == "java")
    text = render_signatures(java, LEDGER)
    assert text.startswith("package shop.books;\n// 2 imports\n// A ledger of entries.\n")
    assert "public class Ledger\n" in text
    assert "    // The entries by account.\n" in text
    assert "    private final Map<String, Long> byAccount = new java.util.HashMap<>();\n" in text
    assert "    // Computes part 3 of the ledger.\n" in text
    assert "    public long part3(java.util.List<Long> entries)\n" in text
    assert "Copyright" not in text
    assert "total +=" not in text
    assert "@param" not in text
    assert cl100k_tokens(LEDGER) >= 3 * cl100k_tokens(text)


def test_python_and_kotlin_outlines() -> None:
    python = next(lang for lang in LANGUAGES if lang.name == "python")
    source = (
        "# Copyright notice\nimport os\n\n\nclass Store(Base):\n"
        '    """Keeps things. More words."""\n\n    def get(self, key: str) -> int:\n'
        '        """Get one."""\n        return len(os.environ[key])\n\n\n'
        "@cached\ndef helper(x):\n    return x\n"
    )
    assert render_signatures(python, source) == (
        "# 1 imports\n# Keeps things.\nclass Store(Base)\n    # Get one.\n"
        "    def get(self, key: str) -> int\n@cached def helper(x)\n"
    )
    kotlin = next(lang for lang in LANGUAGES if lang.name == "kotlin")
    assert render_signatures(
        kotlin,
        "package a\nclass Foo(val x: Int) {\n  fun twice(): Int {\n    return x * 2\n  }\n}\n",
    ) == ("package a\nclass Foo(val x: Int)\n    fun twice(): Int\n")


def test_find_context_signatures_detail_costs_a_third_of_full(project: Project) -> None:
    root = project({"shop/books/Ledger.java": LEDGER, "shop/books/Report.java": REPORT})
    tool = tools_for(root)["find_context"]
    base = {"path": ".", "className": "Report", "includeSource": True}
    full = call(tool, base).structured
    short = call(tool, {**base, "detail": "signatures"})
    assert full is not None
    assert short.structured is not None
    assert short.structured["detail"] == "signatures"
    assert "Texts and token counts are signatures only" in short.text
    [dependency] = short.structured["dependencies"]
    assert "public long part6(java.util.List<Long> entries)" in dependency["source"]
    assert "total +=" not in dependency["source"]
    assert dependency["tokens"] == cl100k_tokens(dependency["source"])
    assert full["dependencies"][0]["tokens"] >= 3 * dependency["tokens"]
    # The budget charges the signatures: a budget too small for the full file now fits.
    tight = call(
        tool, {**base, "detail": "signatures", "tokenBudget": dependency["tokens"]}
    ).structured
    assert tight is not None
    assert [d["path"] for d in tight["dependencies"]] == ["shop/books/Ledger.java"]
    bad = call(tool, {**base, "detail": "bodies"})
    assert bad.is_error
    assert "full" in bad.text
