# ruff: noqa  (labelled test data: star imports and unused names are the point)
import shop.services.accounts


def main():
    return shop.services.accounts.Accounts().get()
