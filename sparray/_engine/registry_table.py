"""Which kernel serves which (operation, layout, backend): the one table the registry is filled from.

Kernel modules are named, not imported: ``_dispatch`` imports them on first use. Generic
implementations register themselves next to their code (``_segments.py``, ``_merge.py``, ...).
"""

from .dispatch import register

KERNELS = [
    # op,                 layout, backend, "module:function"
    ("coalesce",         "coo", "numba", "sparray.kernels.cpu.coalesce:coalesce"),
    ("merge_pattern",    "coo", "numba", "sparray.kernels.cpu.merge:merge_pattern"),
    ("gather_with_fill", "coo", "numba", "sparray.kernels.cpu.merge:gather_with_fill"),
    ("group_reduce",     "coo", "numba", "sparray.kernels.cpu.group_reduce:group_reduce"),
    ("group_reduce",     "csr", "numba", "sparray.kernels.cpu.group_reduce:group_reduce_rows"),
    ("to_dense",         "coo", "numba", "sparray.kernels.cpu.dense:to_dense"),
    ("merge_apply",      "coo", "numba", "sparray.kernels.cpu.binary:merge_apply"),
    ("merge_apply",      "csr", "numba", "sparray.kernels.cpu.binary_rows:merge_apply_rows"),
    ("scatter_sum",      "coo", "numba", "sparray.kernels.cpu.scatter:scatter_sum"),
    ("nonzero_rows",   "dense", "numba", "sparray.kernels.cpu.scatter:nonzero_rows"),
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
    ("slice_minor",          "csr", "numba", "sparray.kernels.cpu.take:slice_minor"),
    # graph semirings (kernels/cpu/semiring.py)
    ("semiring_mxv",         "csr", "numba", "sparray.kernels.cpu.semiring_entries:semiring_mxv"),
    ("bitmap_compact",     "dense", "numba", "sparray.kernels.cpu.bitmap:bitmap_compact"),
    ("semiring_vxm",         "csr", "numba", "sparray.kernels.cpu.semiring_entries:semiring_vxm"),
    ("semiring_mxm",         "csr", "numba", "sparray.kernels.cpu.semiring_entries:semiring_mxm"),
    ("semiring_mxm_dot",     "csr", "numba", "sparray.kernels.cpu.semiring_entries:semiring_mxm_dot"),
    ("graph_reduce",         "csr", "numba", "sparray.kernels.cpu.semiring_entries:graph_reduce"),
    ("graph_select",         "csr", "numba", "sparray.kernels.cpu.semiring_entries:graph_select"),
    ("graph_apply_index",    "csr", "numba", "sparray.kernels.cpu.semiring_entries:graph_apply_index"),
    # serial walks of small frontiers: BFS levels, delta-stepping buckets (kernels/cpu/graph_walk.py)
    ("bfs_walk",             "csr", "numba", "sparray.kernels.cpu.graph_walk:bfs_walk"),
    ("delta_walk",           "csr", "numba", "sparray.kernels.cpu.graph_walk:delta_walk"),
    # 2:4 semi-structured (kernels/cpu/semi_structured.py)
    ("semi_matmul_dense",    "2:4", "numba", "sparray.kernels.cpu.semi_structured:semi_matmul_dense"),
    ("dense_matmul_semi",    "2:4", "numba", "sparray.kernels.cpu.semi_structured:dense_matmul_semi"),
    # CUDA kernels for CuPy data (kernels/cuda: one .cu file + launcher per numba module)
    ("coalesce",         "coo", "cupy", "sparray.kernels.cuda.coalesce:coalesce"),
    ("merge_pattern",    "coo", "cupy", "sparray.kernels.cuda.merge:merge_pattern"),
    ("gather_with_fill", "coo", "cupy", "sparray.kernels.cuda.merge:gather_with_fill"),
    ("merge_apply",      "coo", "cupy", "sparray.kernels.cuda.binary:merge_apply"),
    ("merge_apply",      "csr", "cupy", "sparray.kernels.cuda.binary_rows:merge_apply_rows"),
    ("group_reduce",     "coo", "cupy", "sparray.kernels.cuda.group_reduce:group_reduce"),
    ("group_reduce",     "csr", "cupy", "sparray.kernels.cuda.group_reduce:group_reduce_rows"),
    ("group_reduce_all", "coo", "cupy", "sparray.kernels.cuda.group_reduce:group_reduce_all"),
    ("group_reduce_all", "csr", "cupy", "sparray.kernels.cuda.group_reduce:group_reduce_rows_all"),
    ("scatter_sum",      "coo", "cupy", "sparray.kernels.cuda.scatter:scatter_sum"),
    ("nonzero_rows",   "dense", "cupy", "sparray.kernels.cuda.scatter:nonzero_rows"),
    ("to_dense",         "coo", "cupy", "sparray.kernels.cuda.dense:to_dense"),
    ("compressed_valid", "csr", "cupy", "sparray.kernels.cuda.validate:compressed_valid"),
    ("take_major",       "csr", "cupy", "sparray.kernels.cuda.take:take_major"),
    ("slice_minor",      "csr", "cupy", "sparray.kernels.cuda.take:slice_minor"),
    ("compress_offsets",     "csr", "cupy", "sparray.kernels.cuda.compress:compress_offsets"),
    ("expand_offsets",       "csr", "cupy", "sparray.kernels.cuda.compress:expand_offsets"),
    ("transpose_compressed", "csr", "cupy", "sparray.kernels.cuda.compress:transpose_compressed"),
    ("dense_to_compressed",  "csr", "cupy", "sparray.kernels.cuda.compress:dense_to_compressed"),
    ("compressed_to_dense",  "csr", "cupy", "sparray.kernels.cuda.compress:compressed_to_dense"),
    ("scatter_blocks",       "bsr", "cupy", "sparray.kernels.cuda.compress:scatter_blocks"),
    ("matmul_dense",         "csr", "cupy", "sparray.kernels.cuda.spmm:csr_matmul_dense"),
    ("matmul_dense",         "csc", "cupy", "sparray.kernels.cuda.spmm:csc_matmul_dense"),
    ("matmul_dense",         "bsr", "cupy", "sparray.kernels.cuda.spmm:bsr_matmul_dense"),
    ("matmul_dense",         "bsc", "cupy", "sparray.kernels.cuda.spmm:bsc_matmul_dense"),
    ("spgemm",               "csr", "cupy", "sparray.kernels.cuda.spgemm:spgemm"),
    ("sddmm",                "csr", "cupy", "sparray.kernels.cuda.sddmm:sddmm"),
    ("all_finite",         "dense", "cupy", "sparray.kernels.cuda.finite:all_finite"),
    ("unused_minor",         "csr", "cupy", "sparray.kernels.cuda.occupancy:unused_minor"),
    ("unread_nan",           "csr", "cupy", "sparray.kernels.cuda.spmm:csr_unread_nan"),
    # graph semirings (kernels/cuda/semiring.cu)
    ("semiring_mxv",         "csr", "cupy", "sparray.kernels.cuda.semiring:semiring_mxv"),
    ("semiring_vxm",         "csr", "cupy", "sparray.kernels.cuda.semiring:semiring_vxm"),
    ("semiring_mxm",         "csr", "cupy", "sparray.kernels.cuda.semiring:semiring_mxm"),
    ("semiring_mxm_dot",     "csr", "cupy", "sparray.kernels.cuda.semiring:semiring_mxm_dot"),
    ("graph_reduce",         "csr", "cupy", "sparray.kernels.cuda.semiring:graph_reduce"),
    ("graph_select",         "csr", "cupy", "sparray.kernels.cuda.semiring:graph_select"),
    ("graph_apply_index",    "csr", "cupy", "sparray.kernels.cuda.semiring:graph_apply_index"),
    # 2:4 semi-structured (kernels/cuda/semi_structured.cu)
    ("semi_matmul_dense",    "2:4", "cupy", "sparray.kernels.cuda.semi_structured:semi_matmul_dense"),
    ("dense_matmul_semi",    "2:4", "cupy", "sparray.kernels.cuda.semi_structured:dense_matmul_semi"),
]  # fmt: skip

# kernels that need no JIT warm-up (plain NumPy): used for inputs of every size. CUDA kernels
# compile once per device (NVRTC, cached by CuPy) and serve every size too.
NO_JIT = {("to_dense", "coo", "numba")}

for _op, _layout, _backend, _target in KERNELS:
    register(_op, _layout, _backend, _target, jit=_backend == "numba" and (_op, _layout, _backend) not in NO_JIT)
