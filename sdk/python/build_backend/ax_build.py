"""A PEP 517 / PEP 660 build backend for ax-sdk that needs nothing but the standard library.

pip builds a package in an isolated environment into which it installs the backend's requirements from a
package index. This backend has none (``requires = []`` in pyproject.toml, found through ``backend-path``), so
``pip install ./sdk/python`` works on a machine that cannot reach an index. It builds what ax-sdk is — pure
Python modules under ``src/`` — and nothing else: a wheel, an editable wheel and an sdist.

The metadata comes from pyproject.toml's ``[project]`` table; only the keys ax-sdk uses are read (name,
version, description, readme, requires-python, license), with a small reader of its own, since ``tomllib``
arrived in Python 3.11 and ax-sdk supports 3.9.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = "ax_sdk"
TAG = "py3-none-any"
# Fixed timestamps make the same sources build the same archives.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def read_project(pyproject: Path = ROOT / "pyproject.toml") -> Dict[str, str]:
    """The ``[project]`` keys this backend needs, as strings (``license`` is its ``text``)."""
    project: Dict[str, str] = {}
    section = None
    for raw in pyproject.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = re.fullmatch(r"\[([^\]]+)\]", line)
        if header:
            section = header.group(1).strip()
            continue
        if section != "project":
            continue
        match = re.fullmatch(r'([A-Za-z0-9_-]+)\s*=\s*"((?:[^"\\]|\\.)*)"', line)
        if match:
            project[match.group(1)] = match.group(2).encode("utf-8").decode("unicode_escape")
            continue
        table = re.fullmatch(r'license\s*=\s*\{\s*text\s*=\s*"([^"]*)"\s*\}', line)
        if table:
            project["license"] = table.group(1)
    for key in ("name", "version"):
        if key not in project:
            raise ValueError(f"pyproject.toml: [project] {key} is required")
    return project


def _dist_name(project: Dict[str, str]) -> str:
    """The name as wheel and sdist file names spell it (``ax-sdk`` → ``ax_sdk``)."""
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _dist_info(project: Dict[str, str]) -> str:
    return f"{_dist_name(project)}-{project['version']}.dist-info"


def _metadata(project: Dict[str, str]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
    ]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "license" in project:
        lines.append(f"License: {project['license']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    readme = ROOT / project.get("readme", "README.md")
    body = ""
    if readme.is_file():
        lines.append("Description-Content-Type: text/markdown")
        body = readme.read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + body


def _wheel_file() -> str:
    return "Wheel-Version: 1.0\nGenerator: ax_build\nRoot-Is-Purelib: true\nTag: " + TAG + "\n"


def _sources() -> List[Path]:
    """The package's files: its modules and the py.typed marker, no caches."""
    files = []
    for path in sorted((SRC / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            files.append(path)
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(directory: str, files: List[Tuple[str, bytes]], project: Dict[str, str]) -> str:
    info = _dist_info(project)
    files = files + [
        (f"{info}/METADATA", _metadata(project).encode("utf-8")),
        (f"{info}/WHEEL", _wheel_file().encode("utf-8")),
        (f"{info}/top_level.txt", (PACKAGE + "\n").encode("utf-8")),
    ]
    record = [_record_line(name, data) for name, data in files] + [f"{info}/RECORD,,"]
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    name = f"{_dist_name(project)}-{project['version']}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            entry = zipfile.ZipInfo(path, date_time=_EPOCH)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return name


# ------------------------------------------------------------------------------------------------ PEP 517


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    project = read_project()
    info = Path(metadata_directory) / _dist_info(project)
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(project), encoding="utf-8")
    (info / "WHEEL").write_text(_wheel_file(), encoding="utf-8")
    return info.name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(
    wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None
) -> str:
    """``ax_sdk-<version>-py3-none-any.whl``: the modules under src/ax_sdk and the metadata."""
    files = [(path.relative_to(SRC).as_posix(), path.read_bytes()) for path in _sources()]
    return _write_wheel(wheel_directory, files, read_project())


def build_editable(
    wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None
) -> str:
    """A wheel whose only module is a ``.pth`` file naming src/: ``pip install -e`` imports the checkout."""
    pth = (str(SRC) + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, [("__editable___ax_sdk.pth", pth)], read_project())


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    """``ax_sdk-<version>.tar.gz``: pyproject.toml, README.md, the backend, the sources, PKG-INFO."""
    project = read_project()
    base = f"{_dist_name(project)}-{project['version']}"
    members: List[Tuple[str, bytes]] = [("PKG-INFO", _metadata(project).encode("utf-8"))]
    for name in ("pyproject.toml", "README.md", "build_backend/ax_build.py"):
        if (ROOT / name).is_file():
            members.append((name, (ROOT / name).read_bytes()))
    members += [(path.relative_to(ROOT).as_posix(), path.read_bytes()) for path in _sources()]
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for path, data in members:
            entry = tarfile.TarInfo(f"{base}/{path}")
            entry.size = len(data)
            entry.mode = 0o644
            entry.mtime = 315532800  # 1980-01-01, as in the wheel
            sdist.addfile(entry, io.BytesIO(data))
    return name
