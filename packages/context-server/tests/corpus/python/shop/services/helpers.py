# ruff: noqa  (labelled test data: star imports and unused names are the point)
from shop.models import *


def make():
    label = "User"
    return Admin()
