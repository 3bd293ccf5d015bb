"""Signal processing: 1-D and 2-D convolution (PyTensor's ``pytensor.tensor.signal``)."""

from opgraph.tensor.signal.conv import Convolve1d, Convolve2d, convolve1d, convolve2d

__all__ = ["Convolve1d", "Convolve2d", "convolve1d", "convolve2d"]
