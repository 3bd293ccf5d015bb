"""PyTensor's ``pytensor.link.c`` namespace: the pure-Python faces of the C layer.

The C linker itself lives in the ``opgraph-c`` plugin; what is here is what
user code imports to *declare* things (``COp``, ``Generic``), and needs no
compiler.
"""
