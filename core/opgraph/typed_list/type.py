"""PyTensor's ``typed_list.type`` path: the list Type (defined with the Ops in ``basic``)."""

from opgraph.typed_list.basic import TypedListType

__all__ = ["TypedListType"]
