"""Members and nested types as targets: Outer.Inner, Type#member, Type.member."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from conftest import call, tools_for

Project = Callable[[Mapping[str, str | bytes]], Path]

FILES = {
    "shop/Money.java": "package shop;\npublic class Money { }\n",
    "shop/Tax.java": "package shop;\npublic class Tax { }\n",
    "shop/Order.java": (
        "package shop;\n"  # 1
        "public class Order {\n"  # 2
        "  private Money total;\n"  # 3
        "  public Money price(int n) {\n"  # 4
        "    return new Money();\n"  # 5
        "  }\n"  # 6
        "  public Money price(String s) { return null; }\n"  # 7
        "  public Tax tax() {\n"  # 8
        "    return new Tax();\n"  # 9
        "  }\n"  # 10
        "  public static class Line {\n"  # 11
        "    Tax rate;\n"  # 12
        "  }\n"  # 13
        "}\n"
    ),
    "shop/Cart.java": "package shop;\npublic class Cart {\n  Order order;\n"
    "  Money sum() { return order.price(1); }\n  // price in a comment\n}\n",
    "shop/Till.java": "package shop;\npublic class Till { Order order; }\n",
    "app/__init__.py": "",
    "app/models.py": "class User:\n    def rename(self, name):\n        return Audit()\n\n\n"
    "class Audit:\n    pass\n",
    "app/views.py": "from app.models import User\n\n\ndef show(u: User):\n    u.rename('x')\n",
    "kt/Fees.kt": "package kt\nimport shop.Tax\nclass Fees {\n  fun levy(): Tax {\n"
    '    return Tax()\n  }\n  val label = "fees"\n}\n',
}


def context(root: Path, name: str) -> dict[str, object]:
    result = call(tools_for(root)["find_context"], {"path": ".", "className": name})
    assert not result.is_error, result.text
    assert result.structured is not None
    return result.structured


def test_a_method_is_its_own_span_and_what_it_uses(project: Project) -> None:
    root = project(FILES)
    for name in ("Order#tax", "Order.tax", "shop.Order#tax"):
        answer = context(root, name)
        assert answer["target"]["symbol"] == "shop.Order.tax"  # type: ignore[index]
        assert answer["target"]["lines"] == [8, 10]  # type: ignore[index]
        assert [d["path"] for d in answer["dependencies"]] == ["shop/Tax.java"]  # type: ignore[attr-defined]


def test_overloads_choose_the_first_and_list_the_others(project: Project) -> None:
    root = project(FILES)
    answer = context(root, "Order#price")
    assert answer["target"]["lines"] == [4, 6]  # type: ignore[index]
    assert answer["otherMatches"] == ["shop/Order.java lines 7-7"]
    assert [d["path"] for d in answer["dependencies"]] == ["shop/Money.java"]  # type: ignore[attr-defined]


def test_fields_nested_types_python_and_kotlin_members(project: Project) -> None:
    root = project(FILES)
    field = context(root, "Order.total")
    assert field["target"]["lines"] == [3, 3]  # type: ignore[index]
    assert [d["path"] for d in field["dependencies"]] == ["shop/Money.java"]  # type: ignore[attr-defined]
    nested = context(root, "Order.Line")
    assert nested["target"]["symbol"] == "shop.Order.Line"  # type: ignore[index]
    assert [d["path"] for d in nested["dependencies"]] == ["shop/Tax.java"]  # type: ignore[attr-defined]
    method = context(root, "User#rename")
    assert method["target"]["lines"] == [2, 3]  # type: ignore[index]
    kotlin = context(root, "Fees#levy")
    assert kotlin["target"]["symbol"] == "kt.Fees.levy"  # type: ignore[index]
    assert kotlin["target"]["lines"] == [4, 6]  # type: ignore[index]
    assert context(root, "Fees.label")["target"]["lines"] == [7, 7]  # type: ignore[index]


def test_unknown_member_gets_a_did_you_mean(project: Project) -> None:
    root = project(FILES)
    result = call(tools_for(root)["find_context"], {"path": ".", "className": "Order#prize"})
    assert result.is_error
    assert result.code == "not_found"
    assert "declares no member `prize` in Order; did you mean price?" in result.text
    owner = call(tools_for(root)["find_context"], {"path": ".", "className": "Ordr#price"})
    assert owner.is_error
    assert "did you mean Order?" in owner.text


def test_usages_of_a_member_are_the_files_naming_it(project: Project) -> None:
    root = project(FILES)
    tool = tools_for(root)["find_usages"]
    price = call(tool, {"path": ".", "className": "Order#price"}).structured
    assert price is not None
    assert [(u["path"], u["uses"], u["lines"]) for u in price["users"]] == [
        ("shop/Cart.java", 1, [4])
    ]
    rename = call(tool, {"path": ".", "className": "User.rename"}).structured
    assert rename is not None
    assert [(u["path"], u["lines"]) for u in rename["users"]] == [("app/views.py", [5])]
