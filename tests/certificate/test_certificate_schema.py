"""The fast schema path (expression trees by a compiled predicate) accepts exactly what the published schema
accepts, and a certificate it rejects gets exactly the plain validator's errors and message."""

import copy

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, resealed
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.certificate import certificate_schema
from expmech.proofs.certificate.check._check import _schema_message, _validator
from expmech.proofs.certificate.format._schema import expression_checker, schema_errors

SCHEMA = certificate_schema()
NODES = SCHEMA["$defs"]["expression"]["anyOf"][3]["properties"]["node"]["enum"]
#: the plain validator of the expression definition alone
PLAIN = jsonschema.Draft202012Validator({"$defs": SCHEMA["$defs"], "$ref": "#/$defs/expression"})


def _junk():
    return st.one_of(st.none(), st.integers(-3, 3), st.booleans(), st.text(max_size=3), st.just([]), st.just({}))


def _near_expressions():
    """Mostly well-formed trees, with every way of being ill-formed mixed in at any depth."""
    rational_text = st.one_of(
        st.from_regex(r"-?[0-9]+(/[0-9]+)?", fullmatch=True),
        st.sampled_from(["1\n", "1/2\n", " 1", "1/", "/2", "--1", "1.5", "", "١", "1/2/3", "+1"]),
        st.text(max_size=4),
    )
    leaves = st.one_of(
        st.builds(lambda v: {"rational": v}, st.one_of(rational_text, _junk())),
        st.builds(lambda v: {"bool": v}, st.one_of(st.booleans(), _junk())),
        st.builds(lambda v: {"symbol": v}, st.one_of(st.text(max_size=3), _junk())),
        _junk(),
    )

    def extend(children):
        names = st.one_of(st.sampled_from(NODES), st.sampled_from(["Piecewise", "Foo", "add", ""]), _junk())
        node = st.builds(lambda k, a: {"node": k, "args": a}, names, st.one_of(st.lists(children, max_size=3), _junk()))
        pairs = st.lists(st.one_of(st.lists(children, min_size=0, max_size=3), _junk()), max_size=3)
        piecewise = st.builds(lambda a: {"node": "Piecewise", "args": a}, st.one_of(pairs, _junk()))
        extra = st.builds(lambda d, k, v: {**d, k: v} if isinstance(d, dict) else d, st.one_of(node, leaves), st.sampled_from(["node", "args", "rational", "bool", "symbol", "x"]), _junk())
        missing = st.builds(lambda d, k: {key: v for key, v in d.items() if key != k}, node, st.sampled_from(["node", "args"]))
        return st.one_of(node, node, piecewise, extra, missing, st.lists(children, max_size=2))

    return st.recursive(leaves, extend, max_leaves=10)


def test_the_fast_path_is_in_use_for_the_published_schema():
    """The shipped schema's expression definition is the one the predicate implements (else the fast path is off)."""
    assert expression_checker(SCHEMA) is not None


@settings(max_examples=800, deadline=None)
@given(_near_expressions())
def test_the_predicate_accepts_exactly_what_the_definition_accepts(tree):
    """Generated well- and ill-formed trees: the predicate's verdict is jsonschema's on #/$defs/expression."""
    assert expression_checker(SCHEMA)(tree) == PLAIN.is_valid(tree)


def test_a_changed_definition_turns_the_fast_path_off():
    """Another expression or rational definition: no predicate, so the plain validator decides everything."""
    for change in (
        lambda s: s["$defs"]["expression"]["anyOf"].pop(),
        lambda s: s["$defs"]["expression"]["anyOf"][0].__setitem__("additionalProperties", True),
        lambda s: s["$defs"]["rational"].__setitem__("maxLength", 3),
        lambda s: s["$defs"]["expression"]["anyOf"][3]["properties"]["node"]["enum"].append("Piecewise"),
    ):
        schema = copy.deepcopy(SCHEMA)
        change(schema)
        assert expression_checker(schema) is None


@pytest.fixture(scope="module")
def median():
    return catalogue_certificate("median").data


@settings(max_examples=40, deadline=None)
@given(_near_expressions(), st.sampled_from(["expression", "claimed"]))
def test_forged_trees_get_the_plain_validators_errors(median, tree, where):
    """A tree put in a certificate: the same errors as plain jsonschema; the verifier rejects it (exit 1) where it reads
    it, or, read as the same value, ``reproduce=True`` rejects it at the schema with the plain validator's message."""
    if where == "expression":
        forged = resealed(median, lambda s: s["predicate"]["quality"].__setitem__("expression", tree))
    else:
        forged = resealed(median, lambda s: s["predicate"]["options"].__setitem__("claimed", tree))
    instance = {"certificate": forged["certificate"], "digest": forged["digest"]}
    plain = list(_validator().iter_errors(instance))
    fast = schema_errors(instance, _validator())
    assert [(e.message, list(e.absolute_path)) for e in fast] == [(e.message, list(e.absolute_path)) for e in plain]
    if plain:  # the verifier rejects the tree where it reads it; a tree it reads as the same value, --reproduce's schema
        report = check_certificate(forged, reproduce=True)
        assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1, report.problems
        if report.failed.startswith("reproduce"):
            assert check_certificate(forged).outcome is CheckOutcome.CERTIFIES_DP
            assert report.failed == "reproduce: schema" and report.problems == (f"schema: {_schema_message(forged['certificate'], plain)}",)
        else:
            assert report.failed in ("inputs", "claim sensitivity"), report.problems


def _near_rationals():
    """Lists of mostly well-formed rational texts, with junk items (non-strings, malformed texts) mixed in."""
    text = st.one_of(st.from_regex(r"-?[0-9]+(/[0-9]+)?", fullmatch=True), st.sampled_from(["1\n", " 1", "1/", "1.5", "", "x"]))
    return st.one_of(st.lists(st.one_of(text, text, text, _junk()), max_size=6), _junk())


@settings(max_examples=120, deadline=None)
@given(_near_rationals(), st.lists(st.one_of(st.integers(-3, 3), st.lists(st.integers(0, 2), max_size=2), _junk()), max_size=4))
def test_bulk_lists_get_the_plain_validators_verdict_and_errors(median, measure, outputs):
    """A finite range's base measure (rationals, checked in one pass) and outputs (values, which the schema leaves
    open): the fast validator's verdict and errors are the plain validator's, on generated well- and ill-formed lists."""

    def mutate(statement):
        span = statement["predicate"]["mechanism"]["range"]
        span["base_measure"], span["outputs"] = measure, outputs

    forged = resealed(median, mutate)
    instance = {"certificate": forged["certificate"], "digest": forged["digest"]}
    plain = list(_validator().iter_errors(instance))
    fast = schema_errors(instance, _validator())
    assert [(e.message, list(e.absolute_path)) for e in fast] == [(e.message, list(e.absolute_path)) for e in plain]


def test_the_fast_copy_replaces_every_bulk_reference():
    """The fast validator's schema keeps no per-item reference to #/$defs/value or a list of #/$defs/rational items."""
    from expmech.proofs.certificate.format._schema import _fast_validator

    text = repr(_fast_validator(_validator().schema).schema)
    assert "#/$defs/value'}" not in text and "'items': {'$ref': '#/$defs/rational'}" not in text
