# ruff: noqa  (labelled test data)
