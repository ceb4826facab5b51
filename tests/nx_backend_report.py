"""A pytest plugin for running networkx's own tests through sparray's backend
(tests/test_networkx_backend.py loads it with ``-p nx_backend_report``).

It records, per networkx test, its outcome and whether it reached one of the functions sparray
serves (the backend's function ran, rather than networkx's fallback) or fell back from one (it
raised NotImplementedError), and writes them as JSON to
``$SPARRAY_NX_REPORT`` at the end of the session.
"""

from __future__ import annotations

import json
import os

_current = [None]
_reached: set[str] = set()
_fell_back: set[str] = set()
_outcomes: dict[str, str] = {}


def pytest_configure(config):
    from sparray.graph.networkx_backend import BackendInterface, _algorithms

    for name in _algorithms.SERVED:
        fn = getattr(BackendInterface, name)

        def counted(*args, _fn=fn, **kwargs):
            try:
                return _fn(*args, **kwargs)
            except NotImplementedError:  # networkx falls back to its own function
                _fell_back.add(_current[0])
                raise
            finally:  # sparray's function ran (its networkx exception, if any, is its answer)
                if _current[0] is not None:
                    _reached.add(_current[0])

        setattr(BackendInterface, name, staticmethod(counted))


def pytest_runtest_setup(item):
    _current[0] = item.nodeid


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcome = "xfailed" if hasattr(report, "wasxfail") and report.outcome == "skipped" else report.outcome
        if report.when == "call" or report.nodeid not in _outcomes:
            _outcomes[report.nodeid] = outcome


def pytest_sessionfinish(session):
    path = os.environ.get("SPARRAY_NX_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump({"outcomes": _outcomes, "reached": sorted(_reached), "fell_back": sorted(_fell_back)}, f)
