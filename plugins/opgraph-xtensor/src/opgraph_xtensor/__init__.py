"""opgraph-xtensor: tensors with named dims, served at PyTensor's path ``opgraph.xtensor``.

The library is the subpackage :mod:`opgraph_xtensor.xtensor` (which the
import finder registers as ``opgraph.xtensor``); this package stays empty so
that loading the plugin's entry point imports nothing of the tensor library.
"""
