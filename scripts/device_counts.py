import sys, numpy as np, sparray as sp, warnings
sys.path.insert(0, "/work/main/tests")
from sparray.kernels.cuda import simulated as sim
import test_gpu_public as T
warnings.simplefilter("ignore")
verbose = "-v" in sys.argv
rows = []
for op, (f, _, shapes) in T.OPS.items():
    for shape in shapes:
        if shape not in ("csr", "coo", "csc", "bsr"): continue
        a, b, x, X = T._operands(shape, 0.0, seed=1)
        args = [T._to_place(v, "simulated") for v in (a, b, x, X)]
        f(sp, *args)  # warm (first use of each array is counted separately below)
        a, b, x, X = T._operands(shape, 0.0, seed=1)
        args = [T._to_place(v, "simulated") for v in (a, b, x, X)]
        with sim.counting() as c1:
            f(sp, *args)
        with sim.counting() as c2:
            f(sp, *args)
        rows.append((op, shape, c1.syncs, c2.syncs, len(c2.launches)))
        if verbose and c2.syncs:
            print(op, shape, c2.sites)
print(f"{'op':24} {'layout':6} first  again  launches")
for r in rows:
    print(f"{r[0]:24} {r[1]:6} {r[2]:5} {r[3]:6} {r[4]:8}")
