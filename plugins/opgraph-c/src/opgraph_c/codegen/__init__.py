"""C code generation: scalar expression tables, per-op emitters, the module assembler."""
