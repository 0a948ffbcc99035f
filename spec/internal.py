"""expmech.spec.internal: what ``expmech.impl`` and ``expmech.proofs`` use of the spec beyond its public API.

The layers above import the spec's public names from :mod:`expmech.spec` and
everything else they need of it from here, never from a private ``_module``:
the messages' helpers (:func:`describe`, :func:`readable`, :func:`approximate`),
the reading and validation of rationals (one reader for the API and the command line), the JSON form
of expressions, the Python-comparison hint and watch of the command line, the evaluator of the
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
    "expmech.spec._booleans": ("PYTHON_COMPARISON_HINT",),
    "expmech.spec._errors": ("approximate", "describe", "readable"),
    "expmech.spec._exports": ("lazy_exports",),
    "expmech.spec._language": ("EncodedOutputs", "order_index"),
    "expmech.spec._multiset": ("WeightedRecords",),
    "expmech.spec._quality": ("compile_expression",),
    "expmech.spec._serial": ("domain_from_json", "domain_to_json", "expression_from_json", "expression_to_json"),
    "expmech.spec._validate": (
        "RATIONAL_FORMS",
        "Refusal",
        "as_rational",
        "float_warning",
        "nonnegative_rational",
        "positive_rational",
        "positive_rational_input",
        "rational_input",
        "read_rational",
    ),
    "expmech.spec._watch": ("constant_conditions_refused",),
}

if _typing.TYPE_CHECKING:
    from expmech.spec._booleans import PYTHON_COMPARISON_HINT
    from expmech.spec._errors import approximate, describe, readable
    from expmech.spec._exports import lazy_exports
    from expmech.spec._language import EncodedOutputs, order_index
    from expmech.spec._multiset import WeightedRecords
    from expmech.spec._quality import compile_expression
    from expmech.spec._serial import domain_from_json, domain_to_json, expression_from_json, expression_to_json
    from expmech.spec._validate import (
        RATIONAL_FORMS,
        Refusal,
        as_rational,
        float_warning,
        nonnegative_rational,
        positive_rational,
        positive_rational_input,
        rational_input,
        read_rational,
    )
    from expmech.spec._watch import constant_conditions_refused
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "PYTHON_COMPARISON_HINT",
    "RATIONAL_FORMS",
    "EncodedOutputs",
    "Refusal",
    "WeightedRecords",
    "approximate",
    "as_rational",
    "compile_expression",
    "constant_conditions_refused",
    "describe",
    "domain_from_json",
    "domain_to_json",
    "expression_from_json",
    "expression_to_json",
    "float_warning",
    "lazy_exports",
    "nonnegative_rational",
    "order_index",
    "positive_rational",
    "positive_rational_input",
    "rational_input",
    "read_rational",
    "readable",
]
