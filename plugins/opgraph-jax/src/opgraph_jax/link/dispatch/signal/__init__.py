"""PyTensor's ``link.jax.dispatch.signal`` path."""
