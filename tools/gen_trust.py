"""Write docs/explanation/trust.md: what a third party must trust in a certificate, and each kernel rule's argument.

The page is generated, never typed: the list of rules comes from the proof kernel's rule table
(``expmech.proofs.kernel.RULES``: rule name -> claim kind, statement name in ``spec/``, one-line statement), and each
rule's argument from its ``Statement`` in ``spec/`` (hypotheses, conclusion, proof steps, each algebraic step checked by
sympy when the page is written).  ``tests/docs/test_docs_generated.py`` fails while the committed page differs from
``render()``: run ``python tools/gen_trust.py`` after changing a rule or its statement.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parent.parent / "docs" / "explanation" / "trust.md"

_MUST = [
    ("the proof kernel", "`expmech.proofs.kernel` (`proofs/kernel/`): it reads a derivation, writes every side-condition "
     "query itself from the quality's semantics, and accepts a node only when the rule's conclusion follows from its premises "
     "by exact arithmetic or by a query it wrote. A static test keeps it free of any import of the prover, the certificate "
     "builder and `impl`."),
    ("z3 (and cvc5 where installed)", "an `unsat` answer to a kernel query is taken as a proof of the side condition; "
     "`unknown` or a timeout rejects the node (\"could not confirm\"), never accepts it."),
    ("the spec's semantics", "`expmech.spec`: the quality-function language (what `count`, `total`, `mean` and `size` mean "
     "on a dataset), the neighbour relations, and the statements of the rules listed below."),
    ("Python's `fractions`", "exact rational arithmetic for the data of each node and for the comparisons the kernel makes "
     "itself."),
]

_NEED_NOT = [
    ("the prover", "`expmech.proofs.prover`: its rules, lifts and case splits produce the derivation; a wrong rule produces a "
     "derivation the kernel rejects (the prover-mutation tests break each rule in turn)."),
    ("sympy's simplifier", "the kernel reads sympy expression trees structurally and never calls `simplify`, `cancel`, "
     "`factor` or assumptions; a simplification that drops a case cannot reach a kernel verdict."),
    ("the search", "witnesses, counterexamples and the exact search only show a bound tight or a claim false; no PROVED "
     "rests on them."),
    ("`impl`", "the exact mechanism, sampling and the catalogue: the kernel checks the claim about the quality function, "
     "not the code that samples from it (the conformance check and the audits cover that code)."),
]


#: Every kind of claim a derivation can be written for (the derivation's ``claim`` field), in the certificate's words.
_KINDS = ("sensitivity", "monotonicity", "range-sensitivity", "normaliser", "likelihood-ratio", "privacy", "zcdp", "posterior-range", "truthfulness")


def _words(kinds: list[str]) -> str:
    quoted = [f"`{kind}`" for kind in kinds]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _rules() -> list[tuple[str, str, str, str]]:
    """(rule, claim kind, statement name, one-line statement) of every kernel rule, in the table's order."""
    from expmech.proofs.kernel import RULES

    rows = []
    for name, info in RULES.items():
        kind = getattr(info, "claim", None)
        statement = getattr(info, "statement", None)
        line = getattr(info, "text", None) or getattr(info, "summary", None) or getattr(info, "line", None)
        if isinstance(info, tuple) and len(info) >= 3:
            kind, statement, line = (kind or info[0]), (statement or info[1]), (line or info[2])
        rows.append((str(name), str(kind), str(statement), str(line or "")))
    return rows


def _statement(name: str) -> Any:
    """The spec ``Statement`` called ``name``, or None when ``spec/`` holds none yet."""
    import expmech.spec as spec

    try:
        return spec.statement(name)
    except Exception:  # noqa: BLE001 - InvalidArgument: not (yet) a statement of spec/
        pass
    for attribute in ("RULE_STATEMENTS", "KERNEL_RULE_STATEMENTS"):
        for item in getattr(spec, attribute, ()):
            if getattr(item, "id", None) == name:
                return item
    return None


def _argument(statement: Any) -> list[str]:
    """The statement's hypotheses, conclusion and proof steps (each with sympy's verdict), as Markdown lines."""
    from expmech.spec import check_steps

    lines = []
    if statement.hypotheses:
        lines.append("Hypotheses:")
        lines.append("")
        lines += [f"- {h.text}" + ("" if h.in_source else " *(implicit)*") for h in statement.hypotheses]
        lines.append("")
    lines += [f"Conclusion: {statement.conclusion_text}", ""]
    if statement.steps:
        checks = check_steps(statement)
        lines.append("Argument:")
        lines.append("")
        for number, (step, check) in enumerate(zip(statement.steps, checks), start=1):
            status = getattr(getattr(check, "status", None), "value", "") or ""
            verdict = f" — {step.rule}, checked by sympy: **{status}**" if status else f" — {step.rule}"
            lines.append(f"{number}. {step.text}{verdict}")
        lines.append("")
    if statement.note:
        lines += [statement.note, ""]
    return lines


def render() -> str:
    """The page, as Markdown."""
    lines = [
        "# What a certificate asks you to trust",
        "",
        "<!-- Generated by tools/gen_trust.py from the kernel's rule table and the rule statements of spec/: do not edit by hand. -->",
        "",
        "`expmech check` re-derives every claim with the prover's own code, which catches any edit of a certificate but not a",
        "bug in a prover rule. So a PROVED claim (of each kind listed below) also carries its **derivation** — a tree of rule applications over the",
        "quality's expression, with the dataset sizes n each node covers and the bound it proves — and `check` hands it to",
        "the **proof kernel**, which accepts it rule by rule or names the node that fails and why. A PROVED claim whose",
        "derivation is missing or rejected is not PROVED (exit 1). This is the de Bruijn criterion of proof assistants:",
        "the producer may be as clever as it likes, because only the small checker is trusted.",
        "",
        "## What you must trust",
        "",
    ]
    lines += [f"- **{name}**: {why}" for name, why in _MUST]
    lines += ["", "## What you need not trust", ""]
    lines += [f"- **{name}**: {why}" for name, why in _NEED_NOT]
    rows = _rules()
    checked = sorted({kind for _, kind, _, _ in rows})
    pending = [kind for kind in _KINDS if kind not in checked]
    lines += [
        "",
        "## Which claims the kernel checks",
        "",
        f"Today the kernel has rules for {_words(checked)} claims: `check` runs it on each such claim that is PROVED.",
    ]
    if pending:
        lines += [
            f"Claims of the other kinds ({_words(pending)}) carry no derivation yet: their PROVED rests on the",
            "re-derivation and on the small-model check, not on the kernel.",
        ]
    lines += [
        "The `privacy`, `zcdp`, `posterior-range` (a posterior-sampling certificate's `bounded-range`) and `truthfulness` claims are concluded",
        "from the certificate's other claims: the kernel takes each premise's bound only from that claim's derivation, which it",
        "accepts itself, and checks the conclusion (ε >= 2·ε₀·Δq or ε₀·Δq, ρ >= η²/8, e^Δ̂ >= R, the auction's utilities) by exact arithmetic; a",
        "premise it does not accept rejects the conclusion. `check` binds what the kernel cannot see to the certificate's",
        "inputs: ε₀, and the outputs of positive base measure a posterior's ln R is enumerated over.",
    ]
    lines += [
        "",
        "## The kernel's rules",
        "",
        "Each rule the kernel applies, the kind of claim it serves, and the statement of `spec/` that argues it is sound",
        "(listed by `expmech spec` beside the source's statements).",
        "",
        "| rule | claim | statement | what it concludes |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{rule}` | {kind} | `{statement}` | {line.replace('|', '∣')} |" for rule, kind, statement, line in rows]
    lines.append("")
    for rule, kind, name, line in rows:
        lines += [f"### `{rule}` ({kind})", "", line, ""]
        statement = _statement(name)
        if statement is None:
            lines += [f"*No statement `{name}` in `spec/` yet: this rule's argument is not written down.*", ""]
            continue
        lines += [f"Statement `{statement.id}`: {statement.title}", ""]
        lines += _argument(statement)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
