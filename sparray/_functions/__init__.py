"""The array-API functions, one module per family of the standard: creation, element-wise,
reductions (statistical), searching, sorting, sets, manipulation, indexing, utilities. See docs/architecture.md.
"""
