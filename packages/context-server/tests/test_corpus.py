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


# --- the shapes met on real repositories (tests/corpus_shapes, labels by hand) ---------------
SHAPES = CORPUS.parent / "corpus_shapes"


def test_every_shapes_file_has_exactly_its_labelled_dependencies() -> None:
    labels = json.loads((SHAPES / "labels.json").read_text(encoding="utf-8"))
    assert direct(SHAPES) == {path: sorted(deps) for path, deps in labels.items()}


def test_implicit_imports_win_over_a_project_class_of_the_same_name() -> None:
    index = service_for(SHAPES).index(str(SHAPES))
    engine = index.resolver.direct("jvm/src/main/java/org/acme/core/Engine.java")
    assert engine.files == ()
    assert engine.shadowed == ("IllegalStateException", "Character")
    call = index.resolver.direct("kotlin/src/main/kotlin/okhttp3/RealCall.kt")
    assert {"Result", "Pair", "IllegalStateException"} <= set(call.shadowed)
    # the same package and an explicit import still mean the project's class
    template = index.resolver.direct("jvm/src/main/java/org/acme/jms/JmsTemplate.java")
    assert [(e.target, e.rule) for e in template.edges] == [
        ("jvm/src/main/java/org/acme/jms/IllegalStateException.java", "package")
    ]
    handler = index.resolver.direct("jvm/src/main/java/org/acme/web/Handler.java")
    assert handler.edges[0].rule == "import"


def test_build_output_is_skipped_beside_its_build_file_and_a_target_package_is_kept() -> None:
    index = service_for(SHAPES).index(str(SHAPES))
    listed = {item.relative for item in index.listing.files}
    assert "jvm/src/main/java/org/acme/aop/target/PoolTargetSource.java" in listed
    assert not any(
        path.startswith(("jvm/build/", "scala/target/", "python/build/")) for path in listed
    )


def test_an_import_used_only_in_documentation_is_an_edge_with_no_uses() -> None:
    index = service_for(SHAPES).index(str(SHAPES))
    writer = index.resolver.direct("jvm/src/main/java/org/acme/asm/ClassWriter.java")
    assert [(e.target.rsplit("/", 1)[-1], e.rule, e.uses) for e in writer.edges] == [
        ("CronField.java", "import", 0),
        ("Type.java", "package", 2),
        ("Context.java", "package", 1),
    ]
