"""Packaging: the wheel holds every package, and the README's two commands work for a newcomer.

The install test follows the README in one throwaway venv, from a copy of the repository's
tracked files: ``pip install .`` then ``python -m sparray`` from the root (where Python sees the
source folder ``sparray/`` first) and from elsewhere, then ``pip install -e .`` over it, then
``pip uninstall``, after which nothing named sparray may be importable (numba's compiled kernels
must not be left in site-packages, where they once shadowed the editable install).
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_source_package_is_found():
    """setuptools finds packages under sparray/; every folder with an __init__.py is one of them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["packages"]["find"]["include"] == ["sparray", "sparray.*"]
    assert "package-dir" not in config, "sparray/ must be importable from the root as it is installed"
    for init in (ROOT / "sparray").rglob("__init__.py"):
        assert "__pycache__" not in init.parts
    stray = [p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists() and p.name != "sparray"]
    assert not stray, f"top-level packages outside sparray/: {stray}"


def test_core_dependencies_are_only_numpy_numba_array_api_compat():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip() for d in deps}
    assert names == {"numpy", "numba", "array-api-compat"}


def _tracked_copy(dest: pathlib.Path) -> pathlib.Path:
    """The repository's tracked files (plus untracked, not ignored ones) copied to ``dest``."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def _run(cmd, cwd, env):
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{cmd} failed in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_readme_commands_in_a_fresh_venv(tmp_path):
    repo = _tracked_copy(tmp_path / "repo")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / ("Scripts" if os.name == "nt" else "bin") / "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "NUMBA_CACHE"))}
    env["SPARRAY_CACHE_DIR"] = str(tmp_path / "cache")
    neutral = tmp_path / "elsewhere"
    neutral.mkdir()
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]

    # 1. pip install . && python -m sparray from the root; a kernel from elsewhere (site-packages)
    _run([*pip, "."], repo, env)
    out = _run([py, "-m", "sparray"], repo, env)
    assert "Products stay exact" in out, out[-2000:]
    kernel = (
        "import numpy as np, sparray\n"
        "A = sparray.COO([[2, 0, 2]], [1.0, 2.0, 3.0], shape=(3,))\n"
        "with sparray.use_backend('numba'):\n"
        "    print(A.coalesce().values.tolist())\n"
    )
    assert _run([py, "-c", kernel], neutral, env).strip() == "[2.0, 4.0]"
    site = pathlib.Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], neutral, env).strip())
    leftovers = [p for p in (site / "sparray").rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert not leftovers, f"numba cache files written into site-packages: {leftovers[:3]}"
    assert any((tmp_path / "cache").rglob("*.nbi")), "compiled kernels did not reach SPARRAY_CACHE_DIR"
    # the CUDA sources ship in the wheel beside their launchers
    shipped = {p.name for p in (site / "sparray" / "kernels" / "cuda").iterdir()}
    expected = {p.name for p in (repo / "sparray" / "kernels" / "cuda").iterdir() if p.suffix in (".cu", ".cuh", ".h")}
    assert expected and expected <= shipped, f"CUDA sources missing from the wheel: {sorted(expected - shipped)}"

    # 2. the editable install replaces it and is what Python imports, kernels included
    _run([*pip, "-e", "."], repo, env)
    probe = "import sparray.kernels.cpu.coalesce as k, sparray.kernels as K; print(k.__file__); print(K.KernelDeclined)"
    for cwd in (repo, neutral):
        out = _run([py, "-c", probe], cwd, env)
        assert pathlib.Path(out.splitlines()[0]).resolve().is_relative_to(repo.resolve()), out

    # 3. uninstall leaves nothing importable
    _run([py, "-m", "pip", "uninstall", "-y", "-q", "sparray"], neutral, env)
    gone = subprocess.run([py, "-c", "import sparray"], cwd=neutral, env=env, capture_output=True, text=True)
    assert gone.returncode != 0 and "No module named 'sparray'" in gone.stderr, gone.stdout + gone.stderr
