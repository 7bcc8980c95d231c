from models.parsing import parse


def labels(text: str) -> set[tuple[str, str, str]]:
    return {(a.head_text, a.label, a.child_text) for a in parse(text).arcs}


def test_function_word_arcs_are_excluded_and_prepositions_collapsed() -> None:
    arcs = labels("The mayor of Paris did not open the new bridge on Tuesday.")
    assert ("mayor", "prep_of", "Paris") in arcs
    assert ("open", "prep_on", "Tuesday") in arcs
    assert ("open", "neg", "not") in arcs
    found = {label for _, label, _ in arcs}
    # det (the), aux (did), punct (.) and the bare prep/pobj arcs are gone
    assert not found & {"det", "aux", "punct", "prep", "pobj", "ROOT"}


def test_arc_offsets_point_into_the_original_text() -> None:
    text = "  Zoë Müller  paid €1,849 for the bike.\n\nIt was red."
    parsed = parse(text)
    assert len(parsed.sentences) == 2
    for sentence in parsed.sentences:
        assert text[sentence.start : sentence.end] == sentence.text
        for arc in sentence.arcs:
            assert text[arc.head_start : arc.head_end] == arc.head_text
            assert text[arc.child_start : arc.child_end] == arc.child_text
            assert sentence.tokens[arc.head].text == arc.head_text


def test_no_cap_on_arcs() -> None:
    long = "The " + ", ".join(f"red{i} cat" for i in range(60)) + " slept."
    parsed = parse(long)
    assert len(parsed.arcs) > 100
