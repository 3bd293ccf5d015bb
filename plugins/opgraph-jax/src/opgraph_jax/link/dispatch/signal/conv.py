"""PyTensor's ``link.jax.dispatch.signal.conv`` path: 1-d convolution (``jnp.convolve``)."""

from opgraph.tensor.signal.conv import Convolve1d
from opgraph_jax.link.dispatch.basic import registered_translation

__all__ = ["jax_funcify_Convolve1d"]

jax_funcify_Convolve1d = registered_translation(Convolve1d)
