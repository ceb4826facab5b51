"""Progress bars of long reads and writes: auto (terminal + 2 s), forced, silenced; mmread/mmwrite wiring."""

import io

import numpy as np
import pytest

import sparray
import sparray.io
from sparray._engine.progress import Progress


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_forced_bar_draws_counts_and_ends_with_a_newline():
    out = io.StringIO()
    with Progress(2000, "job", progress=True, stream=out) as bar:
        bar.update(1000)
        bar.stage("half way")
        bar.update(1000)
    text = out.getvalue()
    assert "job: [" in text and "50%" in text and "half way" in text and "2.0 kB / 2.0 kB" in text
    assert text.endswith("\n") and "\r" in text


def test_auto_bar_waits_for_the_delay_and_needs_a_terminal():
    quick = _Tty()
    with Progress(10, "quick", stream=quick) as bar:  # finished before the 2 s delay: nothing drawn
        bar.update(10)
    assert quick.getvalue() == ""
    slow = _Tty()
    with Progress(10, "slow", stream=slow, delay=0.0) as bar:
        bar.update(5)
    assert "slow: [" in slow.getvalue()
    pipe = io.StringIO()  # not a terminal: auto stays silent however long it takes
    with Progress(10, "pipe", stream=pipe, delay=0.0) as bar:
        bar.update(5)
    assert pipe.getvalue() == ""


def test_silenced_bar_and_bad_values():
    out = io.StringIO()
    with Progress(10, "off", progress=False, stream=out) as bar:
        bar.update(10)
    assert out.getvalue() == ""
    with pytest.raises(TypeError, match="progress must be None \\(auto\\), True or False; got 1"):
        Progress(10, "bad", progress=1)


@pytest.mark.parametrize("engine", ["sparray", "fmm"])
def test_mmread_and_mmwrite_show_progress_when_asked(tmp_path, capsys, engine):
    if engine == "fmm":
        pytest.importorskip("fast_matrix_market")
    rng = np.random.default_rng(1)
    D = np.where(rng.random((60, 50)) < 0.2, rng.standard_normal((60, 50)), 0.0)
    A = sparray.asarray(D, layout="csr")
    path = tmp_path / "a.mtx"
    sparray.io.mmwrite(path, A, engine=engine, progress=True)
    err = capsys.readouterr().err
    assert f"mmwrite: [" in err and f"{A.nse} lines / {A.nse} lines" in err
    B = sparray.io.mmread(path, engine=engine, layout="csc", progress=True)
    err = capsys.readouterr().err
    assert "mmread:" in err and "building CSC" in err and f"nse={A.nse}" in err
    np.testing.assert_array_equal(B.to_dense(), D)
    sparray.io.mmread(path, engine=engine, progress=False)
    sparray.io.mmwrite(tmp_path / "b.mtx", A, engine=engine, progress=None)  # auto: captured stderr is no terminal
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="mmread: progress must be"):
        sparray.io.mmread(path, progress="yes")
