"""``python -m sparray`` commands: ``info`` (versions, devices, cache) and ``warmup`` (compile the kernels ahead)."""
