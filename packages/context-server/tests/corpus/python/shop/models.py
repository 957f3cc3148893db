# ruff: noqa  (labelled test data: star imports and unused names are the point)
"""Users. An Order is not a class of this module."""


class User:
    name: str = "Accounts"


class Admin(User):
    pass
