"""The background compile of ``sparray._engine.jit``: ``python -m sparray._engine.jit_worker CALL.pkl ...``.

For each job file its parent wrote: loads (key, target, args), runs the numba kernel ``target``
("module:function") on the arguments, which compiles it into the per-user kernel cache, and leaves
the readiness marker for ``key``. Results are dropped; a kernel error (a decline, a bad input) still
leaves the marker, since the parent's generic call answered for it. Runs at a low priority, in a
process of its own so the parent keeps the GIL. Each job file is removed once read.
"""

from __future__ import annotations

import importlib
import os
import pickle
import shutil
import sys


def run(path: str) -> None:
    from sparray._engine import jit as _jit

    with open(path, "rb") as f:
        key, target, args = pickle.load(f)
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    module, _, name = target.partition(":")
    kernel = getattr(importlib.import_module(module), name)
    try:
        kernel(*args)
    except Exception:  # noqa: BLE001 - compiled or not, the parent's generic call answered
        pass
    _jit.mark_ready(key)


def main(paths) -> int:
    if hasattr(os, "nice"):
        os.nice(10)
    for path in paths:
        try:
            run(path)
        except Exception:  # noqa: BLE001 - a bad job file must not stop the next one
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
