"""The fill-value RFC's application: a mostly-constant signal with rare spikes, kept sparse.

A recording of 1e6 periods sits at level 5 except for a few spikes. With fill_value=5 the signal
is a handful of specified elements; converting it to a membrane potential and then to a
concentration (exp of it) keeps it sparse and exact, because every element-wise step maps the
fill along with the values. Reductions (mean, std) count the million unspecified periods.

Run: python examples/membrane_potential.py
"""

import numpy as np

import sparray


def main(n_periods=1_000_001, n_spikes=50, seed=0):
    rng = np.random.default_rng(seed)
    when = np.sort(rng.choice(n_periods, size=n_spikes, replace=False))
    level = rng.integers(6, 10, size=n_spikes).astype(np.float64)
    signal = sparray.COO(when.reshape(1, -1), level, shape=(n_periods,), fill_value=5.0)

    mV_unit = -8.0
    potential = signal * mV_unit  # fill -40 mV, still n_spikes specified elements
    a, outside = 0.0374, 140.0  # Nernst factor (1/mV) and extracellular concentration (mM)
    inside = outside * sparray.exp(-a * potential)

    print(f"signal:    {signal}")
    print(f"inside:    nse={inside.nse}, fill={float(inside.fill_value):.3f} mM")
    print(f"mean/std of the concentration over {n_periods} periods: "
          f"{float(sparray.mean(inside)):.4f} / {float(sparray.std(inside)):.4f} mM")
    dense = outside * np.exp(-a * (signal.to_dense() * mV_unit))  # the same computed densely
    assert np.allclose(inside.to_dense(), dense)
    assert np.isclose(float(sparray.mean(inside)), dense.mean())
    print("matches the dense computation")
    return inside


if __name__ == "__main__":
    main()
