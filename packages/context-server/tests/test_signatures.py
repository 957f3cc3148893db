"""detail=signatures: bodies and licence headers dropped, signatures and doc summaries kept."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from conftest import call, service_for, tools_for
from context_server.core.languages import LANGUAGES, SourceLanguage
from context_server.core.outline import outline, render_signatures
from context_server.core.tokens import cl100k_tokens

LANGS = Path(__file__).parent / "corpus_langs"
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


def _method_bodies(line: str, count: int) -> str:
    """``count`` copies of ``line`` (``{n}`` numbered): a realistic body's bulk."""
    return "".join(line.format(n=n) for n in range(count))


# Per language: a compact typical type whose outline is checked line by line, and the
# statement line that fills its method bodies to a realistic size for the ratio.
TYPICAL = {
    "typescript": (
        "/*\n * Copyright 2024 Example Corp. MIT License.\n */\n"
        'import { Entry } from "./entry";\nimport * as fs from "fs";\n\n'
        "/** A ledger of entries. Thread-safe. */\n"
        "export class Ledger<T extends Entry> extends Base implements Book {\n"
        "  /** The entries by account. */\n  private byAccount: Map<string, T> = new Map();\n"
        "  readonly name: string;\n\n"
        "  constructor(name: string) {\n    super();\n    this.name = name;\n  }\n\n"
        "  /** Folds the entries. Rounds half up. */\n"
        "  total(entries: T[]): number {\n    let total = 0;\n{BODY}    return total;\n  }\n\n"
        "  onChange = (event: Event): void => {\n    console.log(event);\n  };\n}\n\n"
        "export interface Book {\n  /** Opens it. */\n  open(path: string): Promise<void>;\n"
        "  size: number;\n}\n\n"
        "export const parse = (text: string): Entry[] => {\n{BODY}  return [];\n};\n"
        "export type Account = string | number;\n",
        "    total += entries.length * {n} + (total % 7);\n",
        "// 2 imports\n// A ledger of entries.\n"
        "export class Ledger<T extends Entry> extends Base implements Book\n"
        "    // The entries by account.\n    private byAccount: Map<string, T> = new Map()\n"
        "    readonly name: string\n    constructor(name: string)\n"
        "    // Folds the entries.\n    total(entries: T[]): number\n"
        "    onChange = (event: Event): void\n"
        "export interface Book\n    // Opens it.\n    open(path: string): Promise<void>\n"
        "    size: number\n"
        "export const parse = (text: string): Entry[]\n"
        "export type Account = string | number;\n",
    ),
    "javascript": (
        "// SPDX-License-Identifier: MIT\n\n"
        'import { Entry } from "./entry.js";\n\n'
        "/** A ledger of entries. */\nexport class Ledger {\n"
        "  /** Folds the entries. Rounds half up. */\n"
        "  total(entries) {\n    let total = 0;\n{BODY}    return total;\n  }\n}\n\n"
        "export function parse(text) {\n{BODY}  return [];\n}\n",
        "    total += entries.length * {n} + (total % 7);\n",
        "// 1 imports\n// A ledger of entries.\nexport class Ledger\n"
        "    // Folds the entries.\n    total(entries)\nexport function parse(text)\n",
    ),
    "go": (
        "// Copyright 2024 Example Corp. All rights reserved.\n\n"
        "// Package books keeps ledgers.\npackage books\n\n"
        'import (\n\t"fmt"\n\t"strings"\n)\n\n'
        "// Ledger keeps entries. It is safe for concurrent use.\ntype Ledger struct {\n"
        "\t// byAccount holds the entries by account.\n\tbyAccount map[string]int64\n"
        "\tName      string // shown in reports\n}\n\n"
        "// Book is anything with a total.\ntype Book interface {\n"
        "\t// Total folds the entries.\n\tTotal(entries []int64) int64\n\tfmt.Stringer\n}\n\n"
        "// Total folds the entries. Rounds half up.\n"
        "func (l *Ledger) Total(entries []int64) int64 {\n\tvar total int64\n{BODY}"
        "\treturn total\n}\n\n"
        "func New(name string) *Ledger {\n{BODY}\treturn &Ledger{Name: strings.ToUpper(name)}\n}\n",
        "\ttotal += int64(len(entries)) * {n} + total%7\n",
        "package books\n// 1 imports\n// Ledger keeps entries.\ntype Ledger struct\n"
        "    // byAccount holds the entries by account.\n    byAccount map[string]int64\n"
        "    Name string\n// Book is anything with a total.\ntype Book interface\n"
        "    // Total folds the entries.\n    Total(entries []int64) int64\n    fmt.Stringer\n"
        "// Total folds the entries.\nfunc (l *Ledger) Total(entries []int64) int64\n"
        "func New(name string) *Ledger\n",
    ),
    "rust": (
        "// Copyright 2024 Example Corp. Licensed under MIT.\n\n//! Ledgers.\n\n"
        "use std::collections::HashMap;\nuse crate::entry::Entry;\n\n"
        "/// A ledger of entries.\n/// Thread-safe.\n#[derive(Debug, Clone)]\n"
        "pub struct Ledger {\n    /// The entries by account.\n"
        "    by_account: HashMap<String, i64>,\n    pub name: String,\n}\n\n"
        "/// Anything with a total.\npub trait Book {\n    /// Folds the entries.\n"
        "    fn total(&self, entries: &[Entry]) -> i64;\n}\n\n"
        "impl Book for Ledger {\n    /// Folds the entries. Rounds half up.\n    #[inline]\n"
        "    fn total(&self, entries: &[Entry]) -> i64 {\n        let mut total = 0;\n{BODY}"
        "        total\n    }\n}\n\n"
        "pub fn parse(text: &str) -> Vec<Entry> {\n{BODY}    Vec::new()\n}\n",
        "        total += entries.len() as i64 * {n} + (total % 7);\n",
        "// 2 imports\n// A ledger of entries.\npub struct Ledger\n"
        "    // The entries by account.\n    by_account: HashMap<String, i64>\n"
        "    pub name: String\n// Anything with a total.\npub trait Book\n"
        "    // Folds the entries.\n    fn total(&self, entries: &[Entry]) -> i64;\n"
        "impl Book for Ledger\n    // Folds the entries.\n"
        "    fn total(&self, entries: &[Entry]) -> i64\n"
        "pub fn parse(text: &str) -> Vec<Entry>\n",
    ),
    "csharp": (
        '// <copyright file="Ledger.cs">\n// Copyright (c) Example Corp. Licensed under MIT.\n'
        "// </copyright>\n\nusing System;\nusing System.Collections.Generic;\n\n"
        "namespace Shop.Books\n{\n#if NET8_0\n"
        "    /// <summary>\n    /// A ledger of entries. Thread-safe.\n    /// </summary>\n"
        "    [Serializable]\n    public partial class Ledger : IBook\n    {\n"
        "        /// <summary>The entries by account.</summary>\n"
        "        private readonly Dictionary<string, long> byAccount = new();\n\n"
        "        public string Name { get; private set; }\n\n"
        "        public int Count\n        {\n            get { return byAccount.Count; }\n"
        "        }\n\n"
        '        /// <summary>Folds the entries, see <see cref="IBook"/>.</summary>\n'
        '        /// <param name="entries">The entries.</param>\n'
        "        public long Total(IList<long> entries)\n        {\n            long total = 0;\n"
        "{BODY}            return total;\n        }\n\n"
        "        public long Twice(long x) => x * 2;\n    }\n#endif\n\n"
        "    public interface IBook\n    {\n        long Total(IList<long> entries);\n    }\n}\n",
        "            total += entries.Count * {n} + (total % 7);\n",
        "// 2 imports\nnamespace Shop.Books\n    // A ledger of entries.\n"
        "    [Serializable] public partial class Ledger : IBook\n"
        "        // The entries by account.\n"
        "        private readonly Dictionary<string, long> byAccount = new();\n"
        "        public string Name { get; private set; }\n        public int Count { get; }\n"
        "        // Folds the entries, see IBook.\n        public long Total(IList<long> entries)\n"
        "        public long Twice(long x)\n    public interface IBook\n"
        "        long Total(IList<long> entries);\n",
    ),
}


def _language(name: str) -> SourceLanguage:
    return next(lang for lang in LANGUAGES if lang.name == name)


@pytest.mark.parametrize("name", sorted(TYPICAL))
def test_typical_types_of_every_new_language_keep_signatures_and_docs(name: str) -> None:
    template, line, expected = TYPICAL[name]
    compact = template.replace("{BODY}", _method_bodies(line, 2))
    assert render_signatures(_language(name), compact) == expected
    # The same outline whatever the bodies hold; a typical body makes it 3x cheaper.
    typical = template.replace("{BODY}", _method_bodies(line, 12))
    assert render_signatures(_language(name), typical) == expected
    assert cl100k_tokens(typical) >= 3 * cl100k_tokens(expected)


@pytest.mark.parametrize("name", ["typescript", "go", "rust", "csharp"])
def test_every_declaration_of_the_labelled_fixtures_is_in_its_outline(name: str) -> None:
    root = LANGS / name
    index = service_for(root).index(str(root), "auto")
    for path, facts in sorted(index.sources.items()):
        items = outline(_language(facts.language), (root / path).read_text("utf-8")).items
        names = {item.name for item in items}
        assert {d.simple_name for d in facts.declarations} <= names, path
        # Decoys in comments and strings never become declarations.
        assert all(item.signature for item in items), path


def test_a_typescript_class_member_is_a_target_in_signatures(project: Project) -> None:
    root = project(
        {
            "src/ledger.ts": TYPICAL["typescript"][0].replace("{BODY}", ""),
            "src/report.ts": 'import { Ledger } from "./ledger";\n'
            "export class Report { ledger?: Ledger; }\n",
        }
    )
    tool = tools_for(root)["find_context"]
    member = call(tool, {"path": ".", "className": "Ledger#total"}).structured
    assert member is not None
    assert member["target"]["lines"] == [19, 22]
    short = call(
        tool, {"path": ".", "className": "Report", "includeSource": True, "detail": "signatures"}
    ).structured
    assert short is not None
    [dependency] = short["dependencies"]
    assert dependency["tokens"] > 0
    assert "    total(entries: T[]): number\n" in dependency["source"]


def test_a_doc_about_licences_is_kept_and_a_licence_header_is_not() -> None:
    java = _language("java")
    text = render_signatures(
        java,
        "/* Licensed under the Apache License 2.0. */\nclass Keys {\n"
        "  /** Returns the licence key. Never null. */\n  String key() { return k; }\n}\n",
    )
    assert text == "class Keys\n    // Returns the licence key.\n    String key()\n"


def test_a_barrel_file_shows_its_re_exports() -> None:
    barrel = (
        '// Re-exported for callers.\nexport { User, type Role } from "./user";\n'
        'export * from "./role";\nexport * as money from "./money";\nconst local = 1;\n'
        "export { local };\n"
    )
    assert render_signatures(_language("typescript"), barrel) == (
        "// Re-exported for callers.\n"
        'export { User, type Role } from "./user";\nexport * from "./role";\n'
        'export * as money from "./money";\nconst local = 1;\nexport { local };\n'
    )
