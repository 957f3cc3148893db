"""The labelled corpus: every file's dependency set equals its label exactly."""

from __future__ import annotations

import json

from conftest import CORPUS, direct, service_for


def test_every_corpus_file_has_exactly_its_labelled_dependencies() -> None:
    labels = json.loads((CORPUS / "labels.json").read_text(encoding="utf-8"))
    assert direct(CORPUS) == {path: sorted(deps) for path, deps in labels.items()}


def test_an_ambiguous_simple_name_is_reported_not_guessed() -> None:
    index = service_for(CORPUS).index(str(CORPUS))
    ambiguous = index.resolver.direct("java/com/shop/c/Ambiguous.java").ambiguous
    assert [(a.name, a.candidates) for a in ambiguous] == [
        ("Config", ("java/com/shop/a/Config.java", "java/com/shop/b/Config.java"))
    ]


def test_one_language_indexes_only_its_files() -> None:
    kotlin = direct(CORPUS, "kotlin")
    assert sorted(kotlin) == [
        "kotlin/com/shop/kt/Billing.kt",
        "kotlin/com/shop/kt/Invoices.kt",
        "kotlin/com/shop/kt/Reports.kt",
        "kotlin/com/shop/kt/Tax.kt",
    ]
    # the Java classes are not indexed, so the Kotlin file only reaches Kotlin
    assert kotlin["kotlin/com/shop/kt/Invoices.kt"] == ["kotlin/com/shop/kt/Tax.kt"]


def test_nested_types_and_several_top_level_types_are_declared() -> None:
    index = service_for(CORPUS).index(str(CORPUS))
    order = index.sources["java/com/shop/model/Order.java"]
    assert [d.qualified_name for d in order.declarations] == [
        "com.shop.model.Order",
        "com.shop.model.Order.Status",
        "com.shop.model.Order.Builder",
    ]
    invoices = index.sources["kotlin/com/shop/kt/Invoices.kt"]
    assert [d.simple_name for d in invoices.declarations] == [
        "Invoice",
        "InvoiceFactory",
        "InvoiceLine",
    ]
    service = index.sources["java/com/shop/service/OrderService.java"]
    assert "Helper" not in {d.simple_name for d in service.declarations}  # local class
