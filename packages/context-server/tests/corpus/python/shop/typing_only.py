# ruff: noqa  (labelled test data)
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shop.services.accounts import Accounts


def describe(accounts: Accounts) -> str:
    return f"{len('Admin')} {accounts!r}"
