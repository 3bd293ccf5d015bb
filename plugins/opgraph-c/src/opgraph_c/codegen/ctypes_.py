"""NumPy dtypes as C: type names, type numbers, and which dtypes have C code."""

from __future__ import annotations

__all__ = ["C_TYPES", "NPY_TYPENUMS", "c_type", "kind", "supported", "typenum"]

#: dtype name -> C type of one element.
C_TYPES: dict[str, str] = {
    "bool": "npy_bool",
    "int8": "npy_int8",
    "int16": "npy_int16",
    "int32": "npy_int32",
    "int64": "npy_int64",
    "uint8": "npy_uint8",
    "uint16": "npy_uint16",
    "uint32": "npy_uint32",
    "uint64": "npy_uint64",
    "float32": "npy_float32",
    "float64": "npy_float64",
}

#: dtype name -> NumPy type number macro.
NPY_TYPENUMS: dict[str, str] = {
    "bool": "NPY_BOOL",
    "int8": "NPY_INT8",
    "int16": "NPY_INT16",
    "int32": "NPY_INT32",
    "int64": "NPY_INT64",
    "uint8": "NPY_UINT8",
    "uint16": "NPY_UINT16",
    "uint32": "NPY_UINT32",
    "uint64": "NPY_UINT64",
    "float32": "NPY_FLOAT32",
    "float64": "NPY_FLOAT64",
}


def supported(dtype: str) -> bool:
    """True when generated C handles ``dtype`` (float16 and complex run in Python)."""
    return dtype in C_TYPES


def c_type(dtype: str) -> str:
    return C_TYPES[dtype]


def typenum(dtype: str) -> str:
    return NPY_TYPENUMS[dtype]


def kind(dtype: str) -> str:
    """'bool', 'int', 'uint' or 'float'."""
    if dtype == "bool":
        return "bool"
    if dtype.startswith("uint"):
        return "uint"
    if dtype.startswith("int"):
        return "int"
    return "float"
