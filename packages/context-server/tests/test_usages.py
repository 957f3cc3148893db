"""find_usages: the reverse graph, ranked by uses, with lines, paged; decoys never count."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from conftest import call, tools_for

Project = Callable[[Mapping[str, str | bytes]], Path]

SHOP = {
    "shop/Money.java": "package shop;\npublic class Money { }\n",
    "shop/Order.java": "package shop;\npublic class Order {\n  Money total;\n"
    "  Money tax(Money rate) { return rate; }\n}\n",
    "shop/Cart.java": "package shop;\n// Money in a comment\npublic class Cart {\n"
    '  String label = "Money";\n  Money sum;\n}\n',
    "shop/Free.java": 'package shop;\npublic class Free { String s = "Money"; }\n',
    "other/Doc.java": "package other;\nimport shop.Money;\n/** See {@link Money}. */\n"
    "public class Doc { }\n",
    "py/app/__init__.py": "",
    "py/app/models.py": "class User:\n    pass\n\n\nclass Group:\n    pass\n",
    "py/app/views.py": "from app.models import User, Group\n\n\ndef show(u: User) -> User:\n"
    "    return u\n\n\ndef members(g: Group) -> None:\n    pass\n",
    "py/app/admin.py": "from app.models import Group\n\nADMINS = Group()\n",
}


def test_users_are_ranked_by_uses_with_the_lines_that_name_the_class(project: Project) -> None:
    root = project(SHOP)
    result = call(tools_for(root)["find_usages"], {"path": ".", "className": "Money"})
    assert not result.is_error, result.text
    structured = result.structured
    assert structured is not None
    assert structured["target"] == "shop/Money.java"
    assert structured["symbol"] == "shop.Money"
    users = [(u["path"], u["rule"], u["uses"], u["lines"]) for u in structured["users"]]
    assert users == [
        ("shop/Order.java", "package", 3, [3, 4]),
        ("shop/Cart.java", "package", 1, [5]),
        ("other/Doc.java", "import", 0, [2]),
    ]
    assert "| 3 | other/Doc.java | import | 0 (import only) | 2 |" in result.text


def test_one_class_of_a_module_counts_only_files_naming_it(project: Project) -> None:
    root = project(SHOP)
    tool = tools_for(root)["find_usages"]
    user = call(tool, {"path": ".", "className": "User"}).structured
    assert user is not None
    assert [(u["path"], u["uses"], u["lines"]) for u in user["users"]] == [
        ("py/app/views.py", 2, [1, 4])
    ]
    group = call(tool, {"path": ".", "className": "app.models.Group"}).structured
    assert group is not None
    assert [(u["path"], u["lines"]) for u in group["users"]] == [
        ("py/app/admin.py", [1, 3]),
        ("py/app/views.py", [1, 8]),
    ]
    whole = call(tool, {"path": ".", "className": "py/app/models.py"}).structured
    assert whole is not None
    assert whole["symbol"] is None
    assert [u["path"] for u in whole["users"]] == ["py/app/views.py", "py/app/admin.py"]


def test_users_are_paged(project: Project) -> None:
    root = project(SHOP)
    tool = tools_for(root)["find_usages"]
    first = call(tool, {"path": ".", "className": "Money", "limit": 2})
    assert first.structured is not None
    assert [u["path"] for u in first.structured["users"]] == ["shop/Order.java", "shop/Cart.java"]
    assert first.structured["page"]["nextOffset"] == 2
    assert "pass offset=2 for more" in first.text
    second = call(tool, {"path": ".", "className": "Money", "limit": 2, "offset": 2})
    assert second.structured is not None
    assert [u["path"] for u in second.structured["users"]] == ["other/Doc.java"]


def test_unused_class_and_unknown_name(project: Project) -> None:
    root = project(SHOP)
    tool = tools_for(root)["find_usages"]
    unused = call(tool, {"path": ".", "className": "Free"})
    assert not unused.is_error
    assert "No project file depends on it." in unused.text
    missing = call(tool, {"path": ".", "className": "Mony"})
    assert missing.is_error
    assert missing.code == "not_found"
    assert "did you mean Money?" in missing.text
