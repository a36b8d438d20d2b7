"""The package builds and installs with the standard library alone: no index, no setuptools."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import ax_sdk
from conftest import SDK

sys.path.insert(0, str(SDK / "build_backend"))
import ax_build  # noqa: E402


def test_the_versions_agree():
    assert ax_build.read_project()["version"] == ax_sdk.__version__


def test_the_backends_reader_reads_pyproject_as_toml_does():
    if importlib.util.find_spec("tomllib") is None:
        pytest.skip("tomllib arrived in Python 3.11")
    import tomllib

    project = tomllib.loads((SDK / "pyproject.toml").read_text())["project"]
    mine = ax_build.read_project()
    for key in ("name", "version", "description", "readme", "requires-python"):
        assert mine[key] == project[key]
    assert mine["license"] == project["license"]["text"]
    assert project["dependencies"] == []


def test_the_wheel_holds_the_modules_and_valid_metadata(tmp_path: Path):
    name = ax_build.build_wheel(str(tmp_path))
    assert name == f"ax_sdk-{ax_sdk.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(tmp_path / name) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(f"ax_sdk-{ax_sdk.__version__}.dist-info/METADATA").decode()
        record = wheel.read(f"ax_sdk-{ax_sdk.__version__}.dist-info/RECORD").decode()
    modules = sorted(p.name for p in (SDK / "src" / "ax_sdk").glob("*.py"))
    assert sorted(n.split("/")[1] for n in names if n.startswith("ax_sdk/") and n.endswith(".py")) == modules
    assert "ax_sdk/py.typed" in names
    assert "Name: ax-sdk" in metadata and "Requires-Python: >=3.9" in metadata and "Requires-Dist" not in metadata
    assert all(line.split(",")[0] in names for line in record.splitlines())
    # Importable from the wheel as it is (zipimport): a complete, dependency-free package.
    check = "import ax_sdk, sys; assert ax_sdk.__file__.startswith(sys.argv[1]); print(ax_sdk.Worker.__name__)"
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, sys.argv[1]); {check}",
                          str(tmp_path / name)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "Worker"


def test_the_sdist_and_the_editable_wheel_build(tmp_path: Path):
    sdist = ax_build.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / sdist) as archive:
        names = archive.getnames()
    base = f"ax_sdk-{ax_sdk.__version__}"
    assert f"{base}/pyproject.toml" in names and f"{base}/build_backend/ax_build.py" in names
    assert f"{base}/src/ax_sdk/worker.py" in names and f"{base}/PKG-INFO" in names
    editable = ax_build.build_editable(str(tmp_path / "e") if (tmp_path / "e").mkdir() is None else "")
    with zipfile.ZipFile(tmp_path / "e" / editable) as wheel:
        assert wheel.read("__editable___ax_sdk.pth").decode().strip() == str(SDK / "src")


def test_pip_installs_it_without_a_package_index(tmp_path: Path):
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip(f"no pip for {sys.executable}")
    target = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--disable-pip-version-check",
         "--target", str(target), str(SDK)],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (target / "ax_sdk" / "worker.py").is_file()
    out = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import ax_sdk; "
                          "print(ax_sdk.__file__)", str(target)], capture_output=True, text=True, check=True)
    assert out.stdout.startswith(str(target))
