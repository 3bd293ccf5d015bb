"""Tests of the tensor library (core session: graphs computed with tests/tensor/helpers.py)."""
