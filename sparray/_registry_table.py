"""Which kernel serves which (operation, layout, backend): the one table the registry is filled from.

Kernel modules are named, not imported: ``_dispatch`` imports them on first use. Generic
implementations register themselves next to their code (``_segments.py``, ``_merge.py``, ...).
"""

from ._dispatch import register

KERNELS = [
    # op,                 layout, backend, "module:function"
    ("coalesce",         "coo", "numba", "sparray.kernels.cpu.coalesce:coalesce"),
    ("merge_pattern",    "coo", "numba", "sparray.kernels.cpu.merge:merge_pattern"),
    ("gather_with_fill", "coo", "numba", "sparray.kernels.cpu.merge:gather_with_fill"),
    ("group_reduce",     "coo", "numba", "sparray.kernels.cpu.group_reduce:group_reduce"),
    ("to_dense",         "coo", "numba", "sparray.kernels.cpu.dense:to_dense"),
    ("merge_apply",      "coo", "numba", "sparray.kernels.cpu.binary:merge_apply"),
    ("merge_apply",      "csr", "numba", "sparray.kernels.cpu.binary_rows:merge_apply_rows"),
    ("scatter_sum",      "coo", "numba", "sparray.kernels.cpu.scatter:scatter_sum"),
    ("compressed_valid", "csr", "numba", "sparray.kernels.cpu.validate:compressed_valid"),
    ("compress_offsets",     "csr", "numba", "sparray.kernels.cpu.compress:compress_offsets"),
    ("expand_offsets",       "csr", "numba", "sparray.kernels.cpu.compress:expand_offsets"),
    ("transpose_compressed", "csr", "numba", "sparray.kernels.cpu.compress:transpose_compressed"),
    ("dense_to_compressed",  "csr", "numba", "sparray.kernels.cpu.compress:dense_to_compressed"),
    ("compressed_to_dense",  "csr", "numba", "sparray.kernels.cpu.compress:compressed_to_dense"),
    ("scatter_blocks",       "bsr", "numba", "sparray.kernels.cpu.compress:scatter_blocks"),
    ("matmul_dense",         "csr", "numba", "sparray.kernels.cpu.spmm:csr_matmul_dense"),
    ("matmul_dense",         "csc", "numba", "sparray.kernels.cpu.spmm:csc_matmul_dense"),
    ("matmul_dense",         "bsr", "numba", "sparray.kernels.cpu.spmm:bsr_matmul_dense"),
    ("matmul_dense",         "bsc", "numba", "sparray.kernels.cpu.spmm:bsc_matmul_dense"),
    ("spgemm",               "csr", "numba", "sparray.kernels.cpu.spgemm:spgemm"),
    ("sddmm",                "csr", "numba", "sparray.kernels.cpu.sddmm:sddmm"),
    ("all_finite",         "dense", "numba", "sparray.kernels.cpu.finite:all_finite"),
    ("unused_minor",         "csr", "numba", "sparray.kernels.cpu.occupancy:unused_minor"),
    ("take_major",           "csr", "numba", "sparray.kernels.cpu.take:take_major"),
]  # fmt: skip

# kernels that need no JIT warm-up (plain NumPy): used for inputs of every size
NO_JIT = {("to_dense", "coo", "numba")}

for _op, _layout, _backend, _target in KERNELS:
    register(_op, _layout, _backend, _target, jit=(_op, _layout, _backend) not in NO_JIT)
