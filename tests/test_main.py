"""``python -m sparray``: the tour, ``info``, and a usage error for anything else (in subprocesses)."""

import subprocess
import sys


def _run(*args):
    return subprocess.run([sys.executable, "-m", "sparray", *args], capture_output=True, text=True)


def test_info_reports_versions_backends_devices_and_cache():
    done = _run("info")
    assert done.returncode == 0, done.stderr
    fields = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    for key in ("sparray", "python", "numpy", "numba", "backends", "cpu", "numba threading layer", "kernel cache root"):
        assert key in fields, (key, done.stdout)
    assert "generic" in fields["backends"]
    assert "numba" not in done.stderr  # no warning, nothing compiled


def test_unknown_command_prints_usage():
    done = _run("warp-speed")
    assert done.returncode == 2
    assert "usage: python -m sparray [tour|info|warmup|torch]" in done.stderr and "warp-speed" in done.stderr


def test_tour_runs_every_section():
    done = _run()
    assert done.returncode == 0, done.stderr[-3000:]
    for n in range(1, 11):
        assert f"\n{n}. " in "\n" + done.stdout, f"section {n} missing"
    assert "dense NumPy D @ x" in done.stdout and "same y: True" in done.stdout
    assert "same y: False" not in done.stdout


def test_tour_leaves_torch_unimported_and_torch_command_shows_it():
    """The tour costs what a newcomer meets first: it does not import torch (1.5-3 s) even where
    torch is installed; ``python -m sparray torch`` runs the interop lines instead."""
    import importlib.util

    code = "import sys, sparray.__main__ as m; m.main(); print('torch imported:', 'torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "torch imported: False" in done.stdout
    done = _run("torch")
    assert done.returncode == 0, done.stderr[-3000:]
    if importlib.util.find_spec("torch") is None:
        assert "not installed" in done.stdout
    else:
        assert "values shared" in done.stdout
        assert "from_torch(t) equals C" in done.stdout and done.stdout.rstrip().endswith("True")


def test_warmup_runs_each_family_against_numpy(monkeypatch, capsys):
    """Every exercise family checks its kernels against NumPy; one dtype pair of each here (the
    whole list compiles minutes of kernels on a cold cache: ``python -m sparray warmup``)."""
    from sparray._tools import warmup as _warmup

    steps = [s for s in _warmup.exercises() if "float64/int64" in s[0] or "Matrix Market" in s[0]]
    assert len(steps) == 5 and len(_warmup.exercises()) == 4 * 3 * 2 + 1
    monkeypatch.setattr(_warmup, "exercises", lambda: steps)
    seconds = _warmup.warmup(progress=True)
    err = capsys.readouterr().err
    assert seconds > 0 and "warmup: [" in err and "5 steps / 5 steps done" in err
