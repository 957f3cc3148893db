# ruff: noqa  (labelled test data: star imports and unused names are the point)
from ..models import User as Account
from . import helpers


class Accounts:
    # Admin is only named in this comment
    def get(self) -> Account:
        return helpers.make()
