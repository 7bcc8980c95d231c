"""Issue 12 item 2: the extra NLI files, and corruptions that teach relations, not word presence.

Every corruption is run on a real spaCy parse; the tests show the text it makes and which arcs
end up entailed (1), not entailed (0) or unknown (-1).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from models.errors import InputError
from models.training import data as D
from models.training import examples as E
from models.training import labels as L

parsing = pytest.importorskip("models.parsing")


def parse(text: str):
    return parsing.parse(text)


def arc_labels(source: str, text: str, changed, *, relation: bool) -> dict[tuple, int]:
    """(head text, label, child text) -> label, for ``text`` edited from ``source``."""
    edited = parse(text).sentences[0]
    known = L.arc_keys(parse(source))
    y = L.edit_labels(edited, changed, known, all_supported=True, relation=relation)
    return {(a.head_text, a.label, a.child_text): v for a, v in zip(edited.arcs, y, strict=True)}


# ---- the extra NLI files ----


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_extra_pairs_are_read_with_labels_mapped_and_text_detokenised(tmp_path: Path) -> None:
    extra = tmp_path / "nli" / "extra"
    _write(
        extra / "fever_nli_binary.jsonl",
        [
            {
                "id": "f1",
                "premise": "Paris -LRB- France -RRB- is a city , said `` Le Monde '' .",
                "hypothesis": "Paris is a city.",
                "label": "entailment",
                "source": "x",
            },
            {"id": "f2", "premise": "Rome is old .", "hypothesis": "Rome is new.",
             "label": "not_entailment", "source": "x"},
        ],
    )  # fmt: skip
    _write(
        extra / "cad_snli_train.jsonl",
        [
            {"id": "c0", "premise": "A man rides a red bike.", "hypothesis": "A man rides.",
             "label": "entailment", "source": "x"},
            # the same item with its premise revised: linked through the shared hypothesis
            {"id": "c1", "premise": "A woman rides a red bike.", "hypothesis": "A man rides.",
             "label": "contradiction", "source": "x"},
            {"id": "c2", "premise": "A dog sleeps.", "hypothesis": "An animal sleeps.",
             "label": "neutral", "source": "x"},
        ],
    )  # fmt: skip
    pairs = D.read_extra_pairs(tmp_path)  # the other three files are missing: skipped
    assert [(p.source, p.label) for p in pairs] == [
        ("nli/extra/fever_nli_binary.jsonl", "entailment"),
        ("nli/extra/fever_nli_binary.jsonl", "neutral"),  # not_entailment: not supported
        ("nli/extra/cad_snli_train.jsonl", "entailment"),
        ("nli/extra/cad_snli_train.jsonl", "contradiction"),
        ("nli/extra/cad_snli_train.jsonl", "neutral"),
    ]
    assert pairs[0].premise == 'Paris (France) is a city, said "Le Monde".'
    assert pairs[1].premise == "Rome is old."
    # split by premise, widened to minimal-edit variants of one item
    assert pairs[2].group == pairs[3].group == "A man rides a red bike."
    assert pairs[4].group == "A dog sleeps."
    assert all(p.source in D.LICENSES and p.source in E.PAIR_QUOTAS for p in pairs)


def test_a_claim_shared_by_two_files_stays_on_one_side(tmp_path: Path) -> None:
    fever, sym = "nli/extra/fever_nli_binary.jsonl", "nli/extra/fever_symmetric.jsonl"
    first = D.split_of(fever + "Premise A.")
    other = next(f"Premise {n}." for n in range(200) if D.split_of(sym + f"Premise {n}.") != first)
    same = next(f"Premise {n}." for n in range(200) if D.split_of(sym + f"Premise {n}.") == first)
    row = {"hypothesis": "The claim.", "label": "entailment", "source": "x"}
    _write(tmp_path / fever, [{"id": "a", "premise": "Premise A.", **row}])
    _write(
        tmp_path / sym,
        [
            {"id": "b", "premise": other, **row},
            {"id": "c", "premise": same, **row, "hypothesis": "Another claim."},
        ],
    )
    pairs = D.read_extra_pairs(tmp_path)
    # FEVER-Symmetric's copy of the claim on the other side is dropped; its other pair stays
    assert [(p.premise, p.hypothesis) for p in pairs] == [
        ("Premise A.", "The claim."),
        (same, "Another claim."),
    ]


def test_extra_pairs_bad_row_names_file_and_line(tmp_path: Path) -> None:
    _write(
        tmp_path / "nli" / "extra" / "fm2_devtest.jsonl",
        [
            {"id": "a", "premise": "A.", "hypothesis": "B.", "label": "entailment"},
            {"id": "b", "premise": "A.", "hypothesis": "B.", "label": "refutes"},
        ],
    )
    with pytest.raises(InputError) as err:
        D.read_extra_pairs(tmp_path)
    assert err.value.line == 2 and err.value.path.endswith("fm2_devtest.jsonl")


def test_every_extra_file_has_a_license_and_a_quota() -> None:
    for name in D.EXTRA_NLI:
        assert f"nli/extra/{name}" in D.LICENSES
        assert f"nli/extra/{name}" in E.PAIR_QUOTAS


def test_pair_quotas_keep_the_files_apart() -> None:
    # "cad_snli_train" contains "snli": it must draw on its own quota, never on SNLI's
    def pair(source: str, n: int) -> D.TextPair:
        return D.TextPair(source, f"premise {n}", f"premise {n}", "hyp", "entailment")

    pairs = [pair("nli/snli_dev_from_esnli.tsv", n) for n in range(40)] + [
        pair("nli/extra/cad_snli_train.jsonl", n) for n in range(40)
    ]
    plan = E.Plan(snli=1000, cad=0)
    chosen = E._pick_pairs(pairs, plan, "train", random.Random(0))
    assert chosen and {p.source for p in chosen} == {"nli/snli_dev_from_esnli.tsv"}
    both = E._pick_pairs(pairs, E.Plan(snli=1000, cad=5), "train", random.Random(0))
    assert sum(p.source.endswith("cad_snli_train.jsonl") for p in both) == 5
    assert all(D.split_of(p.source + p.group) == "train" for p in both)


# ---- a. role swap ----


def test_role_swap_in_one_sentence_flags_the_role_arcs_only() -> None:
    source = "Angela Merkel thanked Emmanuel Macron in Berlin."
    text, changed = L.swap_roles(parse(source).sentences[0], random.Random(0))  # type: ignore[misc]
    assert text == "Emmanuel Macron thanked Angela Merkel in Berlin."  # a place never trades
    assert [text[a:b] for a, b in changed] == ["Emmanuel Macron", "Angela Merkel"]
    assert arc_labels(source, text, changed, relation=True) == {
        ("thanked", "nsubj", "Macron"): 0,
        ("thanked", "dobj", "Merkel"): 0,
        ("Macron", "compound", "Emmanuel"): 1,  # inside a name: still what the source says
        ("Merkel", "compound", "Angela"): 1,
        ("thanked", "prep_in", "Berlin"): 1,
    }


def test_role_swap_through_prepositions() -> None:
    source = "The map was drawn by Gerard Mercator for Abraham Ortelius."
    text, changed = L.swap_roles(parse(source).sentences[0], random.Random(0))  # type: ignore[misc]
    assert text == "The map was drawn by Abraham Ortelius for Gerard Mercator."
    y = arc_labels(source, text, changed, relation=True)
    assert y[("drawn", "prep_by", "Ortelius")] == 0
    assert y[("drawn", "nsubjpass", "map")] == 1


@pytest.mark.parametrize(
    "source",
    [
        "Smith met Jones in Paris.",  # symmetric predicate
        "Smith played against Jones.",  # symmetric preposition
        "Smith and Jones beat the champions.",  # coordinated names
        "The company hired many new workers.",  # no names at all
    ],
)
def test_role_swap_leaves_symmetric_and_coordinated_names_alone(source: str) -> None:
    assert L.swap_roles(parse(source).sentences[0], random.Random(0)) is None


def test_role_taken_by_a_name_from_another_source_sentence() -> None:
    source = "The map was drawn by Mercator. Ortelius published the atlas in Antwerp."
    doc = parse(source)
    text, changed = L.borrow_entity(doc.sentences[0], doc.sentences, random.Random(0))  # type: ignore[misc]
    assert text == "The map was drawn by Ortelius."  # Antwerp is a place: not an agent
    assert arc_labels(source, text, changed, relation=True) == {
        ("drawn", "nsubjpass", "map"): 1,
        ("drawn", "prep_by", "Ortelius"): 0,
    }


def test_borrowed_name_never_shares_a_word_with_a_name_in_the_sentence() -> None:
    doc = parse("Angela Merkel thanked the voters. Merkel was tired.")
    assert L.borrow_entity(doc.sentences[0], doc.sentences, random.Random(0)) is None


# ---- b. a number, date or place of another event ----


@pytest.mark.parametrize(
    ("source", "expected", "flagged"),
    [
        (
            "The museum opened in 1902. It burned down in 1990.",
            "The museum opened in 1990.",
            ("opened", "prep_in", "1990"),
        ),
        (
            "The fire killed 12 people. About 300 people lived in the village.",
            "The fire killed 300 people.",
            ("people", "nummod", "300"),
        ),
        (
            "The band played in Leeds on Friday. They flew to York on Monday.",
            None,  # either the place or the day moves; checked below
            None,
        ),
    ],
)
def test_moved_detail_comes_from_another_sentence(source, expected, flagged) -> None:
    doc = parse(source)
    text, changed = L.move_detail(doc.sentences[0], doc.sentences, random.Random(0))  # type: ignore[misc]
    if expected is None:
        assert text in {
            "The band played in York on Friday.",
            "The band played in Leeds on Monday.",
        }
    else:
        assert text == expected
    assert text[slice(*changed[0])] in doc.sentences[1].text  # the value is in the source
    y = arc_labels(source, text, changed, relation=True)
    zeros = {k for k, v in y.items() if v == 0}
    assert len(zeros) == 1 and all(v == 1 for v in y.values() if v != 0)
    if flagged is not None:
        assert zeros == {flagged}


@pytest.mark.parametrize(
    "source",
    [
        "The museum opened in 1902. It has 300 paintings.",  # a count is not a year
        "The station opened on 31 March. It has 12 platforms.",  # nor a day of the month
        "The museum opened in 1902. It was shut in 2015-16.",  # part of a longer word
    ],
)
def test_moved_detail_needs_a_value_of_the_same_kind(source: str) -> None:
    doc = parse(source)
    assert L.move_detail(doc.sentences[0], doc.sentences, random.Random(0)) is None


@pytest.mark.parametrize(
    "source",
    [
        # pieces of longer names never trade places
        "The conductor founded the Academy of Ancient Music with Christopher Hogwood.",
        "Handel's Messiah was recorded by Hogwood.",
    ],
)
def test_role_swap_keeps_names_whole(source: str) -> None:
    assert L.swap_roles(parse(source).sentences[0], random.Random(0)) is None


def test_role_swap_moves_the_article_with_the_name() -> None:
    source = "Sheikh Ali Salman told the BBC that talks had failed."
    text, _ = L.swap_roles(parse(source).sentences[0], random.Random(0))  # type: ignore[misc]
    assert text == "The BBC told Sheikh Ali Salman that talks had failed."


# ---- c. negation dropped (with re-inflection) and added ----


@pytest.mark.parametrize(
    ("source", "expected", "verb"),
    [
        ("The team did not win the final.", "The team won the final.", "won"),
        ("The police didn't stop the car.", "The police stopped the car.", "stopped"),
        ("The company does not own the building.", "The company owns the building.", "owns"),
        ("Residents do not support the plan.", "Residents support the plan.", "support"),
        ("The mayor did not carry the vote.", "The mayor carried the vote.", "carried"),
    ],
)
def test_did_not_x_becomes_xed(source: str, expected: str, verb: str) -> None:
    sent = parse(source).sentences[0]
    text, changed = L.drop_negation(sent)  # type: ignore[misc]
    assert text == expected
    assert [text[a:b] for a, b in changed] == [verb]
    y = arc_labels(source, text, changed, relation=False)
    # every arc of the verb that lost its negation says the opposite of the source
    assert y and all((v == 0) == (verb in (h, c)) for (h, _, c), v in y.items())


def test_do_negation_in_a_question_is_left_alone() -> None:
    assert L.undo_do_negation(parse("Did the team not win the final?").sentences[0]) is None


@pytest.mark.parametrize(
    ("lemma", "past", "third"),
    [
        ("win", "won", "wins"),
        ("close", "closed", "closes"),
        ("carry", "carried", "carries"),
        ("stop", "stopped", "stops"),
        ("open", "opened", "opens"),
        ("admit", "admitted", "admits"),
        ("go", "went", "goes"),
        ("fix", "fixed", "fixes"),
    ],
)
def test_verb_inflection(lemma: str, past: str, third: str) -> None:
    assert L.past_tense(lemma) == past
    assert L.third_person(lemma) == third


def test_added_negation_of_a_past_verb() -> None:
    source = "The team won the final."
    text, changed = L.negate(parse(source).sentences[0])  # type: ignore[misc]
    assert text == "The team did not win the final."
    y = arc_labels(source, text, changed, relation=False)
    assert y[("win", "neg", "not")] == 0


# ---- d. positives: a clause moved, fusion ----


@pytest.mark.parametrize(
    ("source", "moved"),
    [
        (
            "The council approved the budget on Monday.",
            "On Monday, the council approved the budget.",
        ),
        (
            "On Monday, the council approved the budget.",
            "The council approved the budget on Monday.",
        ),
        ("The storm damaged the bridge in 2019.", "In 2019, the storm damaged the bridge."),
        ("She lives in Paris.", None),  # a complement, not an adjunct: stays
        ('He said "we won" on Monday.', None),
    ],
)
def test_moved_clause_keeps_every_arc(source: str, moved: str | None) -> None:
    assert L.move_clause(parse(source).sentences[0]) == moved
    if moved is not None:
        # the same arcs (lemma, label, lemma): every arc of the positive is entailed
        assert L.arc_keys(parse(moved)) == L.arc_keys(parse(source))


@pytest.mark.parametrize(
    ("source", "fused"),
    [
        (  # "It" cannot stand for a plural subject: the pronoun is kept
            "The workers repaired the roof. It is made of slate.",
            "The workers repaired the roof, and it is made of slate.",
        ),
        (
            "Smith founded the firm in 1990. He sold it in 2001.",
            "Smith founded the firm in 1990 and sold it in 2001.",
        ),
        ("The council approved the budget. However, the vote was close.", None),
        ("The council approved the budget. But the vote was close.", None),
    ],
)
def test_fusion_keeps_the_pronoun_unless_it_agrees(source: str, fused: str | None) -> None:
    doc = parse(source)
    assert L.fuse(doc.sentences[0], doc.sentences[1]) == fused


# ---- wiring: document corruptions and the default plan ----

DOCUMENT = (
    "Angela Merkel thanked Emmanuel Macron in Berlin on Monday. "
    "The museum opened in 1902 after a long campaign. "
    "The team did not win the final in 2010. "
    "Ortelius published the atlas in Antwerp. "
    "The council approved the budget on Friday."
)


def _doc_id(split: str) -> str:
    return next(f"doc-{n}" for n in range(100) if D.split_of(f"doc-{n}") == split)


def _corrupt(split: str = "train", **flags: bool) -> list[E.Example]:
    record = D.SummaryRecord("test", _doc_id(split), "sys", DOCUMENT, "summary.", 1)
    return E.document_corruptions(
        [record],
        E.ParseCache(None),
        split,
        per_doc=5,
        max_length=512,
        count_tokens=lambda t: len(t.split()),
        retriever=None,
        rng=random.Random(0),
        **flags,
    )


def test_document_corruptions_add_relation_negatives_and_moved_clause_positives() -> None:
    plain = {e.kind for e in _corrupt()}
    assert not plain & {"doc-role", "doc-moved", "doc-clause"}
    out = _corrupt(role_swaps=True, move_details=True, move_clauses=True)
    kinds = {e.kind for e in out}
    assert {"doc-role", "doc-moved", "doc-clause", "doc-negation"} <= kinds
    for e in out:
        if e.kind in {"doc-role", "doc-moved"}:
            assert e.support == 0 and 0 in e.arc_y
        if e.kind == "doc-clause":
            assert e.support == 1 and set(e.arc_y) == {1}
    role = next(e for e in out if e.sentence.startswith("Emmanuel Macron thanked Angela Merkel"))
    assert role.kind == "doc-role"
    won = next(e for e in out if e.sentence == "The team won the final in 2010.")
    flagged = {
        won.sentence[slice(*a.head)] for a, y in zip(won.arcs, won.arc_y, strict=True) if y == 0
    }
    assert flagged == {"won"}
    assert all(e.split == "train" for e in out)


def test_default_plan_switches_the_new_supervision_on(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = E.Plan()
    assert plan.role_swap and plan.move_details and plan.move_clauses and plan.fuse
    assert plan.fever and plan.conjnli and plan.cad and plan.fm2 and plan.fever_sym
    small = plan.scaled(0.5)
    assert small.fever == plan.fever // 2 and small.role_swap
    # build_all hands the plan's flags to the document corruptions
    record = D.SummaryRecord("test", _doc_id("train"), "sys", DOCUMENT, "summary.", 1)
    monkeypatch.setattr(E, "read_pairs", lambda data_dir: [])
    monkeypatch.setattr(E, "span_records", lambda data_dir: [record])
    built = E.build_all(
        Path("unused"),
        E.ParseCache(None),
        E.Plan(doc_sentences=5),
        count_tokens=lambda t: len(t.split()),
        retriever=None,
    )
    kinds = {e.kind for e in built["train"]}
    assert {"doc-role", "doc-moved", "doc-clause", "doc-fuse"} <= kinds
    assert built["dev"] == [] or all(e.split == "dev" for e in built["dev"])


def test_pair_corruptions_prefer_a_role_swap() -> None:
    text = "Gerard Mercator drew the map for Abraham Ortelius."
    pair = D.TextPair("nli/extra/fm2_devtest.jsonl", text, text, text, "entailment")
    split = D.split_of(pair.source + pair.group)
    plan = E.Plan(corrupt_pairs=40, fm2=40)  # room on either side (dev gets a quarter)
    # two bases: the rotation gives the first a word swap, the second the "entity" turn,
    # which a relation error takes when the pair has the material
    out = E.pair_examples([pair, pair], E.ParseCache(None), plan, split, random.Random(1))
    role = [e for e in out if e.kind == "role"]
    assert [e.sentence for e in role] == ["Abraham Ortelius drew the map for Gerard Mercator."]
    assert role[0].support == 0 and role[0].evidence == text
    flagged = {
        role[0].sentence[slice(*a.child)]
        for a, y in zip(role[0].arcs, role[0].arc_y, strict=True)
        if y == 0
    }
    assert flagged == {"Ortelius", "Mercator"}
    off = E.pair_examples(
        [pair, pair], E.ParseCache(None), replace(plan, role_swap=False), split, random.Random(1)
    )
    assert not [e for e in off if e.kind == "role"]


def test_dev_examples_do_not_depend_on_building_the_training_split(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records = [
        D.SummaryRecord("test", _doc_id(split), "sys", DOCUMENT, "summary.", 1)
        for split in ("train", "dev")
    ]
    monkeypatch.setattr(E, "read_pairs", lambda data_dir: [])
    monkeypatch.setattr(E, "span_records", lambda data_dir: records)

    def build(**kw: object) -> dict:
        return E.build_all(
            Path("unused"),
            E.ParseCache(None),
            E.Plan(doc_sentences=5),
            count_tokens=lambda t: len(t.split()),
            retriever=None,
            **kw,  # type: ignore[arg-type]
        )

    both = build()
    dev_only = build(splits=("dev",))
    assert set(dev_only) == {"dev"} and both["dev"]
    assert [(e.kind, e.sentence, e.arc_y) for e in dev_only["dev"]] == [
        (e.kind, e.sentence, e.arc_y) for e in both["dev"]
    ]
