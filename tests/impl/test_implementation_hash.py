"""implementation_sha256 covers every source file of expmech.impl, in every room, so a change anywhere in it is visible."""

import types
from importlib import resources
from pathlib import Path

from expmech.proofs.certificate.make import _build

IMPL = Path(__file__).resolve().parents[2] / "impl"


def test_every_source_file_of_every_room_is_hashed():
    """The files hashed are exactly the .py files under impl/, subfolders included (the rooms hold nearly all of the code)."""
    hashed = {name for name, _ in _build._sources(resources.files("expmech.impl"), "")}
    on_disk = {path.relative_to(IMPL).as_posix() for path in IMPL.rglob("*.py") if "__pycache__" not in path.parts}
    assert hashed == on_disk
    assert "exponential/_finite.py" in hashed and "exact/_expsum.py" in hashed


def test_a_change_in_a_room_changes_the_hash(tmp_path, monkeypatch):
    """Editing a module inside a room, or adding one, changes the digest; a compiled cache or a non-Python file does not."""
    (tmp_path / "exact").mkdir()
    (tmp_path / "__init__.py").write_text("")
    module = tmp_path / "exact" / "_sums.py"
    module.write_text("X = 1\n")
    monkeypatch.setattr(_build, "resources", types.SimpleNamespace(files=lambda name: tmp_path))
    first = _build.implementation_sha256()
    (tmp_path / "exact" / "__pycache__").mkdir()
    (tmp_path / "exact" / "__pycache__" / "_sums.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "exact" / "notes.txt").write_text("n")
    assert _build.implementation_sha256() == first
    module.write_text("X = 2\n")
    second = _build.implementation_sha256()
    assert second != first
    (tmp_path / "exact" / "_more.py").write_text("")
    assert _build.implementation_sha256() != second
