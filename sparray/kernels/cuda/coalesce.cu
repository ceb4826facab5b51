// Coalescing a COO key list (summing duplicates): run heads of the sorted keys and a segmented sum
// through the sort permutation. Mirrors kernels/cpu/coalesce.py; the sort itself is CuPy's (CUB
// radix sort) on a GPU and NumPy's stable sort in the emulator.
#include "_segments.cuh"
