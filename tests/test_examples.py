"""The examples run and check themselves against dense NumPy."""

import pathlib
import runpy

import numpy as np
import pytest

import sparray

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_membrane_potential_example(capsys):
    ns = runpy.run_path(str(EXAMPLES / "membrane_potential.py"))
    inside = ns["main"](n_periods=10_001, n_spikes=7)
    assert inside.nse == 7
    assert "matches the dense computation" in capsys.readouterr().out


def _example(name):
    return runpy.run_path(str(EXAMPLES / f"{name}.py"))


def test_conjugate_gradient_example(capsys):
    ns = _example("conjugate_gradient")
    ns["main"](n=20)
    out = capsys.readouterr().out
    assert "CG converged" in out and "matches numpy.linalg.solve" in out
    A = ns["poisson2d"](5)
    D = A.to_dense()
    assert A.layout == "csr" and np.array_equal(D, D.T) and (np.diag(D) == 4).all() and D.sum(axis=1).max() == 2 and D.sum(axis=1).min() == 0


def test_pagerank_example(capsys):
    ranks = _example("pagerank")["main"](n=5_000)
    assert abs(ranks.sum() - 1.0) < 1e-8 and (ranks > 0).all()
    assert "matches a dense power iteration" in capsys.readouterr().out


def test_sparse_linear_layer_example(capsys):
    pytest.importorskip("torch")
    trained = _example("sparse_linear_layer")["main"](out_features=16, in_features=32, steps=10)
    assert trained.layout == "csr"
    assert "matches torch's forward pass" in capsys.readouterr().out


def test_pruned_linear_example(capsys):
    ns = _example("pruned_linear")
    A = ns["main"]()  # the example's own sizes: a 1024 x 1024 float32 weight, a batch of 64
    out = capsys.readouterr().out
    assert A.layout == "2:4" and A.shape == (1024, 1024) and A.nse == 1024 * 512
    assert "matches the dense product of the pruned weight" in out and "= 17/32 of the dense weight" in out
    # the device part, on the simulated GPU (CuPy's rules, the kernels through the emulator)
    from sparray.kernels.cuda import simulated

    W, b = ns["layer"](32, 64, seed=3)
    x = np.random.default_rng(4).standard_normal((64, 5)).astype(np.float32)
    assert ns["on_device"](sparray.prune_2_4(W), x, b, simulated.to_simulated, lambda y: y.get(), "simulated") < 1e-2
    assert "simulated: 2:4" in capsys.readouterr().out


def test_tour_notebook_executes():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(EXAMPLES / "tour.ipynb", as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), "outputs are not committed"
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("sparsity pattern" in h for h in html), "the HTML repr with its pattern picture was not shown"
    assert any("image/png" in o.get("data", {}) for o in outputs), "spy's figure was not shown"


@pytest.fixture(scope="module")
def dask_client():
    """One two-worker LocalCluster (loopback) for the distributed examples."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        yield client


def test_distributed_cg_example(capsys, dask_client):
    x = _example("distributed_cg")["main"](n=12, blocks=3, client=dask_client)
    out = capsys.readouterr().out
    assert x.shape == (144,) and "3 CSR row blocks on 2 workers" in out
    assert "relative residual every 10 iterations" in out and "matches the single-process solution" in out


def test_distributed_pagerank_example(capsys, dask_client):
    ns = _example("distributed_pagerank")
    ranks = ns["main"](scale=9, blocks=3, client=dask_client)
    assert abs(ranks.sum() - 1.0) < 1e-8 and (ranks > 0).all()
    assert "matches a dense power iteration" in capsys.readouterr().out
    G, _ = ns["google_matrix"](6)
    assert G.layout == "csr" and np.isclose(float(G.fill_value), 0.15 / 64)
