"""The examples run and check themselves against dense NumPy."""

import pathlib
import runpy

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_membrane_potential_example(capsys):
    ns = runpy.run_path(str(EXAMPLES / "membrane_potential.py"))
    inside = ns["main"](n_periods=10_001, n_spikes=7)
    assert inside.nse == 7
    assert "matches the dense computation" in capsys.readouterr().out
