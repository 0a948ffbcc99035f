"""Files are measured before they are read, and JSON nesting is bounded before it is parsed (expmech.proofs._inputlimits).

The two pieces are standalone (standard library and expmech.spec's error class
only) so the verifier can use them as is.  The depth scan is checked against
the depth of the parsed value on generated JSON full of brackets, quotes and
escapes inside strings, and on hostile texts (unterminated strings, a million
brackets); the size check against a tripwire that fails any read.  Then every
file the command line reads whole — composition certificates, certificates
given to account, pyproject.toml, PEM keys, synth's CSV — is refused by its
size before a byte of it is read, exit 2.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expmech.proofs._inputlimits import InputRefused, check_file_size, check_json_depth, json_depth, read_limited_bytes
from expmech.proofs.cli import main
from expmech.spec import InvalidArgument

TRICKY = st.text(alphabet=st.sampled_from(list('[]{}"\\,:ab é\n\t') + ["\u2028", "\x00", "🂡"]), max_size=12)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), TRICKY),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(TRICKY, children, max_size=4)),
    max_leaves=30,
)


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


@given(json_values, st.booleans(), st.integers(0, 3))
def test_the_scan_finds_the_depth_of_the_parsed_value(value, ascii_only, indent):
    """On generated JSON (brackets, quotes and backslashes inside strings and keys, any layout), as str and as UTF-8
    bytes, the linear scan's depth is the parsed value's depth."""
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent or None)
    assert json_depth(text) == _depth(value) == json_depth(text.encode("utf-8"))


@given(json_values, st.integers(0, 8))
def test_a_refusal_is_exactly_past_the_limit(value, limit):
    """check_json_depth refuses iff the depth exceeds max_depth, naming max_depth and the depth reached."""
    text = json.dumps(value)
    if _depth(value) > limit:
        with pytest.raises(InputRefused) as info:
            check_json_depth(text, max_depth=limit)
        assert info.value.parameter == "max_depth" and info.value.value == limit + 1 and f"limit of {limit}" in str(info.value)
    else:
        check_json_depth(text, max_depth=limit)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('"[[[[', 0),  # an unterminated string swallows the rest
        ('["\\\\"]', 1),  # an escaped backslash ends before the quote
        ('["\\"[[["]', 1),  # an escaped quote does not end the string
        ('[ "a\\', 1),  # a backslash at the very end
        ("]]]][", 1),  # unbalanced closers are json.loads' business
        ("[" * 10**6, 10**6),
        ('"' + '\\"' * 100_000 + '"[', 1),  # a hundred thousand escaped quotes, then one bracket
        ('"' * 100_001 + "[", 0),  # fifty thousand empty strings, then an unterminated one
        ('{"a": [' + '"]" ,' * 1000 + "1]}", 2),
        ("", 0),
    ],
)
def test_hostile_texts(text, depth):
    """Texts no JSON writer emits get the depth of their brackets outside strings, without recursion."""
    assert json_depth(text) == depth == json_depth(text.encode())


def test_a_deep_document_is_refused_before_json_loads_recurses():
    """A million brackets: refused by name at max_depth + 1, where json.loads would raise RecursionError."""
    text = "[" * 10**6 + "]" * 10**6
    with pytest.raises(InputRefused, match="max_depth"):
        check_json_depth(text, max_depth=160)
    with pytest.raises(RecursionError):
        json.loads(text)


@pytest.fixture
def tripwire(monkeypatch):
    """Any open or read of a file under the returned set of paths fails the test."""
    watched: set[str] = set()
    real_open = pathlib.Path.open

    def guarded_open(self, *args, **kwargs):
        assert str(self.resolve()) not in watched, f"{self} was read"
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "open", guarded_open)
    return watched


def test_the_size_is_checked_before_any_read(tmp_path, tripwire):
    """check_file_size and read_limited_bytes refuse an oversize file from its size alone, naming file, size and limit."""
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 5000)
    tripwire.add(str(big.resolve()))
    with pytest.raises(InputRefused) as info:
        read_limited_bytes(big, max_bytes=4096, what="certificate")
    assert info.value.parameter == "max_bytes" and info.value.value == 5000
    assert "big.json" in str(info.value) and "5,000 bytes" in str(info.value) and "4,096" in str(info.value)
    assert check_file_size(big, max_bytes=5000) == 5000


def test_what_is_not_a_regular_file_is_refused(tmp_path):
    """A directory, a FIFO (which would block a read) and a missing path are refused by name, never opened."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, problem in ((tmp_path, "not a regular file"), (fifo, "not a regular file"), (tmp_path / "none", "does not exist")):
        with pytest.raises(InputRefused, match=problem):
            read_limited_bytes(path, max_bytes=10)
    with pytest.raises(InvalidArgument, match="max_bytes"):
        check_file_size(tmp_path, max_bytes=-1)


def test_the_module_imports_only_the_standard_library_and_spec_errors():
    """Importing it loads no sympy, z3, numpy, impl or prover: the verifier may reuse it."""
    code = "import sys, expmech.proofs._inputlimits; print(sorted(m for m in ('sympy', 'z3', 'numpy', 'flint', 'expmech.impl', 'expmech.proofs.prover', 'expmech.proofs.certificate') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# -- the files the command line reads whole ------------------------------------------------------------------


def test_check_does_not_read_a_large_file_to_see_whether_it_is_a_composition(tmp_path, tripwire, capsys):
    """A 5 MB file given to check is refused by max_bytes from its size: no part of it is read (it was read whole,
    up to 64 MiB, to look for a composition key)."""
    big = tmp_path / "big.cert.json"
    big.write_bytes(b'{"composition": ' + b" " * (5 << 20) + b"1}")
    tripwire.add(str(big.resolve()))
    assert main(["check", str(big)]) == 2
    out = capsys.readouterr().out
    assert "REFUSED" in out and "max_bytes" in out


def test_a_composition_certificate_is_bounded_in_depth_before_it_is_parsed(tmp_path, capsys, monkeypatch):
    """A nested composition file is refused by max_depth before json.loads sees it."""
    deep = tmp_path / "deep.json"
    deep.write_text('{"composition": ' + "[" * 100_000 + "]" * 100_000 + "}")
    calls = []
    real_loads = json.loads
    monkeypatch.setattr(json, "loads", lambda text, *a, **k: calls.append(len(text)) or real_loads(text, *a, **k))
    from expmech.proofs.cli._account import check_composition_file

    assert check_composition_file(str(deep), max_bytes=1 << 20) is None
    assert calls == [], "refused before parsing"


def test_account_refuses_a_deep_certificate_by_depth(tmp_path, capsys):
    """expmech account on a deeply nested file: exit 2 naming max_depth, never a RecursionError."""
    deep = tmp_path / "deep.cert.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    assert main(["account", str(deep), "--times", "2", "--delta", "1/1000"]) == 2
    assert "max_depth" in capsys.readouterr().err


def test_a_huge_pyproject_is_refused_unread(tmp_path, tripwire, capsys, monkeypatch):
    """A pyproject.toml over 4 MiB: exit 2 naming its size, never read."""
    project = tmp_path / "pyproject.toml"
    project.write_bytes(b"#" * ((4 << 20) + 1))
    tripwire.add(str(project.resolve()))
    real_read_text = pathlib.Path.read_text

    def guarded_read_text(self, *args, **kwargs):
        assert self.resolve() != project.resolve(), f"{self} was read"
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", guarded_read_text)
    monkeypatch.chdir(tmp_path)
    assert main(["verify"]) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml" in err and "4,194,305 bytes" in err


def test_a_huge_key_is_refused_unread(tmp_path, tripwire):
    """A 'PEM key' of 100 KB is refused from its size, naming the parameter."""
    pytest.importorskip("securesystemslib")
    from expmech.proofs.certificate.format._signing import load_signing_key

    key = tmp_path / "key.pem"
    key.write_bytes(b"-" * 100_000)
    tripwire.add(str(key.resolve()))
    with pytest.raises(InvalidArgument, match="sign_key=.*100,000 bytes"):
        load_signing_key(str(key))


def test_synth_refuses_an_input_over_max_bytes_unread(tmp_path, tripwire, capsys):
    """synth's CSV is measured first: over --max-bytes, exit 2 naming the flag, nothing read."""
    data = tmp_path / "bits.csv"
    data.write_text("0,1\n" * 1000)
    tripwire.add(str(data.resolve()))
    assert main(["synth", str(data), "--m", "2", "--max-bytes", "100"]) == 2
    assert "--max-bytes=100" in capsys.readouterr().err
