"""PyTensor's ``pytensor.misc`` helpers that user code imports."""
