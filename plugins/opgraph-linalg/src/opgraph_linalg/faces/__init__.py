"""Modules served at PyTensor's paths (``opgraph.tensor.linalg`` and below,
``opgraph.tensor.nlinalg``, ``opgraph.tensor.slinalg``) through the
``opgraph_public_modules`` hook; each re-exports names defined elsewhere in the package."""
