"""A sparse linear layer exchanged with PyTorch: prune in sparray, train in torch, read back.

A dense weight is pruned to its largest 10% in sparray (a CSR array), handed to torch with
``to_torch`` (the CSR components are shared through DLPack, no copy) and used as the weight of
a layer ``y = x @ W.T + b``. torch trains the stored values (the pattern stays fixed: a
``torch.sparse_csr_tensor`` rebuilt from the same index buffers and a trainable values tensor);
the trained layer comes back with ``from_torch`` and sparray's ``x @ W.mT`` gives the same
outputs as torch's forward pass.

Run: python examples/sparse_linear_layer.py   (needs torch: pip install torch==2.13.0)
"""

from __future__ import annotations

import warnings

import numpy as np

import sparray


def pruned_weight(out_features: int, in_features: int, keep: float = 0.1, seed: int = 0):
    """A CSR weight holding the ``keep`` fraction of a random dense weight with the largest magnitude."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((out_features, in_features)) / np.sqrt(in_features)
    cut = np.quantile(np.abs(W), 1.0 - keep)
    return sparray.asarray(np.where(np.abs(W) >= cut, W, 0.0), layout="csr")


def main(out_features: int = 64, in_features: int = 256, steps: int = 50):
    import torch

    from sparray.interop.torch import from_torch, to_torch

    torch.manual_seed(0)
    warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta", category=UserWarning)
    W = pruned_weight(out_features, in_features)
    shared = to_torch(W)  # same buffers as W
    assert shared.values().data_ptr() == W.values.__array_interface__["data"][0]

    values = torch.nn.Parameter(shared.values().clone())
    bias = torch.nn.Parameter(torch.zeros(out_features, dtype=torch.float64))
    crow, col = shared.crow_indices(), shared.col_indices()

    def weight():
        return torch.sparse_csr_tensor(crow, col, values, size=W.shape, check_invariants=False)

    def forward(x):
        return (weight() @ x.T).T + bias

    # a target made by a hidden dense layer; the pruned layer learns to follow it
    x = torch.randn(512, in_features, dtype=torch.float64)
    target = x @ torch.randn(in_features, out_features, dtype=torch.float64) * 0.05
    opt = torch.optim.Adam([values, bias], lr=1e-2)
    first = None
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.mean((forward(x) - target) ** 2)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    print(f"sparse layer {W.shape}, nse={W.nse} ({W.density:.0%} dense): loss {first:.4f} -> {loss.item():.4f}")
    assert loss.item() < first

    trained = from_torch(weight().detach())  # back in sparray, same pattern
    assert trained.layout == "csr" and trained.nse == W.nse
    y_sparray = x.numpy() @ trained.mT.to_dense() + bias.detach().numpy()
    y_sparray_sparse = (trained @ x.numpy().T).T + bias.detach().numpy()
    with torch.no_grad():
        y_torch = forward(x).numpy()
    assert np.allclose(y_sparray_sparse, y_torch) and np.allclose(y_sparray, y_torch)
    print("sparray's trained W @ x matches torch's forward pass")
    return trained


if __name__ == "__main__":
    main()
