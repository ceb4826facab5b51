"""numba kernels on NumPy buffers; one module per kernel family."""
