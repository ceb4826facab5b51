"""The wheel contains every package of the source tree (a subpackage left out of pyproject breaks installs)."""

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_source_package_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    dirs = config["package-dir"]
    found = set()
    for name, rel in dirs.items():
        base = ROOT / rel
        for init in base.rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            sub = init.parent.relative_to(base).parts
            found.add(".".join((name, *sub)))
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"


def test_core_dependencies_are_only_numpy_numba_array_api_compat():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip() for d in deps}
    assert names == {"numpy", "numba", "array-api-compat"}
