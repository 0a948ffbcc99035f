"""expmech.spec.internal: what ``expmech.impl`` and ``expmech.proofs`` use of the spec beyond its public API.

The layers above import the spec's public names from :mod:`expmech.spec` and
everything else they need of it from here, never from a private ``_module``:
the messages' helpers (:func:`describe`, :func:`readable`, :func:`approximate`),
the validation of rationals, the JSON form of expressions, the evaluator of the
language (:func:`compile_expression`), the lazy-export helper of every package's
``__init__``. These names are internal — they may change with the layers that
use them — but they are named, so that a change to one is a change to this
list. Lazy (PEP 562), as the layers are: importing this module imports only
what is used. ``tests/project/test_layering.py`` keeps private names from crossing
layers.
"""

import typing as _typing

from ._exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "expmech.spec._errors": ("approximate", "describe", "readable"),
    "expmech.spec._exports": ("lazy_exports",),
    "expmech.spec._language": ("EncodedOutputs",),
    "expmech.spec._quality": ("compile_expression",),
    "expmech.spec._serial": ("expression_from_json", "expression_to_json"),
    "expmech.spec._validate": ("as_rational", "nonnegative_rational", "positive_rational"),
}

if _typing.TYPE_CHECKING:
    from expmech.spec._errors import approximate, describe, readable
    from expmech.spec._exports import lazy_exports
    from expmech.spec._language import EncodedOutputs
    from expmech.spec._quality import compile_expression
    from expmech.spec._serial import expression_from_json, expression_to_json
    from expmech.spec._validate import as_rational, nonnegative_rational, positive_rational
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "EncodedOutputs",
    "approximate",
    "as_rational",
    "compile_expression",
    "describe",
    "expression_from_json",
    "expression_to_json",
    "lazy_exports",
    "nonnegative_rational",
    "positive_rational",
    "readable",
]
