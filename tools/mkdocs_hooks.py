"""mkdocs hooks: let mkdocstrings find ``expmech.spec``, ``expmech.impl`` and ``expmech.proofs``.

The three packages live in ``spec/``, ``impl/`` and ``proofs/`` and are mapped to ``expmech.*`` by setuptools'
``package-dir``; griffe looks for an ``expmech/`` folder.  When mkdocs loads this hook (before any plugin reads its
configuration), it lays out ``.mkdocs-api/expmech/{spec,impl,proofs}`` (git-ignored) as symbolic links to the
checkout's folders; ``mkdocs.yml`` puts ``.mkdocs-api`` on the Python handler's search path.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("spec", "impl", "proofs")


def _lay_out() -> None:
    package = ROOT / ".mkdocs-api" / "expmech"
    package.mkdir(parents=True, exist_ok=True)
    for name in PACKAGES:
        link = package / name
        if link.is_symlink() and link.resolve() == (ROOT / name).resolve():
            continue
        if link.is_symlink():
            link.unlink()
        link.symlink_to(ROOT / name, target_is_directory=True)


_lay_out()
