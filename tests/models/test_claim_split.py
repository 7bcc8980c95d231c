"""Claims of an output sentence: each fact judged on its own (models.claim_split)."""

from __future__ import annotations

from models.claim_split import as_written, described_claims, split_claims
from models.parsing import parse


def _claims(text: str) -> list[str]:
    (sentence,) = parse(text).sentences
    return [c.text for c in split_claims(sentence)]


def test_coordinated_clauses_are_claims_and_borrow_the_subject() -> None:
    assert _claims("He was arrested on Monday and charged with fraud.") == [
        "He was arrested on Monday",
        "He was charged with fraud",
    ]


def test_a_clause_with_its_own_subject_keeps_it() -> None:
    assert _claims("The company reported record profits, but its shares fell 3%.") == [
        "The company reported record profits",
        "its shares fell 3%",
    ]


def test_a_subject_relative_clause_is_a_claim_about_its_noun() -> None:
    got = _claims("The mayor, who was elected in 2019, opened the bridge and praised the workers.")
    assert got == [
        "The mayor opened the bridge",
        "The mayor praised the workers",
        "The mayor was elected in 2019",
    ]


def test_a_relative_clause_on_a_noun_that_renames_another_is_a_claim_about_that_one() -> None:
    # a copula's attribute and an appositive rename a noun: the clause says what that one did
    assert _claims("John Knox was someone who read the Bible.") == [
        "John Knox was someone",
        "John Knox read the Bible",
    ]
    assert _claims("The prize went to Greenstone, a small firm which builds radio beacons.") == [
        "The prize went to Greenstone, a small firm",
        "Greenstone builds radio beacons",
    ]
    # no such claim is made where the copula is negated or has no subject of its own
    assert _claims("Richelieu was not a man who worked for the church.")[1] == (
        "a man worked for the church"
    )
    assert _claims("There was an artist who painted the highlands.")[1] == (
        "an artist painted the highlands"
    )
    # nor where a phrase after the noun may be what the clause is about
    assert _claims("Alice is the name of the queen's aunt, who died in 2004.")[1] == (
        "the queen's aunt died in 2004"
    )


def test_a_which_clause_after_a_phrase_of_its_noun_stays_in_its_sentence() -> None:
    # the parse hangs the clause on "officials", but it is the accusation that led to a comeback
    assert _claims("People accused Rao officials of corruption, which led to a comeback.") == [
        "People accused Rao officials of corruption, which led to a comeback."
    ]
    # the agency made the profit, not its managers
    claims = _claims(
        "Managers at the passport agency, which made a profit during the chaos, received bonuses."
    )
    assert not any("Managers at the passport agency made" in c for c in claims)
    # a "which" clause right after its noun is a claim as before
    assert _claims("He bought the old mill, which dates from 1890.") == [
        "He bought the old mill",
        "the old mill dates from 1890",
    ]


def test_a_clause_that_only_says_which_ones_is_no_claim_of_its_own() -> None:
    # a quantified noun, a pronoun for whoever fits, a kind of thing: the clause restricts
    for text in (
        "The owner has promised to interview every affected worker who applies.",
        "No player who signed in May has played.",
        "Scotland Yard is appealing to anyone who may have had contact with her.",
        "Children who share iPads do better than those who do not.",
        "Virtual reality is often used to understand people who have autism.",
    ):
        assert _claims(text) == [text]
    # a noun the sentence picks out keeps its clause as a claim
    assert _claims("The residents who lived near the plant were moved.") == [
        "The residents were moved",
        "The residents lived near the plant",
    ]
    assert _claims("Police arrested a man who was seen near the scene.")[1] == (
        "a man was seen near the scene"
    )
    # after a comma the clause says something of every one of them
    assert _claims("All passengers, who had booked online, got a refund.") == [
        "All passengers got a refund",
        "All passengers had booked online",
    ]


def test_a_relative_clause_claim_takes_its_noun_as_it_stands_before_the_clause() -> None:
    # the parse hangs "of stealing" on the noun; it is what she suspects, not what is unemployed
    assert _claims("She suspects the trainee, who is unemployed, of stealing.") == [
        "She suspects the trainee of stealing",
        "the trainee is unemployed",
    ]


def test_a_verb_with_its_own_object_takes_no_passive_auxiliary() -> None:
    assert _claims("The letters were expected to fetch 300,000 dollars but received no bids.") == [
        "The letters were expected to fetch 300,000 dollars",
        "The letters received no bids",
    ]
    # a verb whose passive keeps an object ("was handed an order") still shares it
    assert _claims("He was sentenced to unpaid work and handed a supervision order.") == [
        "He was sentenced to unpaid work",
        "He was handed a supervision order",
    ]


def test_a_verb_that_may_belong_to_a_reported_clause_is_not_split_off() -> None:
    # lower-cased, the parser joins "tipped" to "says": split off with the main verb's subject
    # it would claim that Musk tipped over
    text = "spacex founder elon musk says the rocket landed, but tipped over ."
    (sentence,) = parse(text).sentences
    tipped = next(t for t in sentence.tokens if t.text == "tipped")
    assert sentence.tokens[tipped.head].text == "says"  # the parse this guards against
    assert split_claims(sentence) == (sentence,)
    # with no reported clause before it, a verb without a subject still borrows the main one
    assert _claims("spacex founder elon musk praised the team, but warned of delays .") == [
        "spacex founder elon musk praised the team",
        "spacex founder elon musk warned of delays",
    ]


def test_a_verb_that_may_belong_to_an_adverbial_clause_is_not_split_off() -> None:
    # the parser joins "declined" to the main verb: split off with the main subject it would
    # claim that the rent declined to honour it (it is Lisse, the adverbial clause's subject)
    text = (
        "The salt-mine rent settled in 1648 to close a conflict of more than a decade lapsed "
        "once Lisse had taken over Corvo in 1702 and declined to honour it."
    )
    (sentence,) = parse(text).sentences
    declined = next(t for t in sentence.tokens if t.text == "declined")
    root = next(t for t in sentence.tokens if t.dep == "ROOT")
    assert declined.head == root.i  # the parse this guards against
    assert split_claims(sentence) == (sentence,)
    # a verb that follows the main clause's own words still borrows the main subject
    assert _claims("The mayor opened the bridge after the vote, and praised the workers.") == [
        "The mayor opened the bridge after the vote",
        "The mayor praised the workers",
    ]


def test_a_sentence_that_makes_one_claim_is_kept_whole() -> None:
    text = "Smith, the mayor of Leeds, said the plan would cost 5 million pounds."
    (sentence,) = parse(text).sentences
    assert split_claims(sentence) == (sentence,)
    # an object relative clause is not rewritten (no pronoun subject to replace)
    assert _claims("The book that he wrote sold well.") == ["The book that he wrote sold well."]


def test_claims_keep_offsets_into_the_output_and_their_content_arcs() -> None:
    text = "He was arrested on Monday and charged with fraud."
    (sentence,) = parse(text).sentences
    first, second = split_claims(sentence)
    for claim in (first, second):
        assert claim.index == sentence.index and claim.arcs
        assert all(text[t.start : t.end] == t.text for t in claim.tokens)
        assert all(0 <= t.head < len(claim.tokens) for t in claim.tokens)
    assert {t.text for t in second.tokens} >= {"He", "was", "charged", "fraud"}


def test_words_inside_quotation_marks_are_not_split() -> None:
    text = 'She said the charge would be "a tax on people who have no other way to get to work".'
    assert _claims(text) == [text]


def test_a_verb_in_its_own_tense_shares_no_do_and_no_negation() -> None:
    """ "did not confirm … but insisted" makes no claim "did not insisted": "do" carries the
    tense and negation of a base-form verb only."""
    assert _claims("Police did not confirm the report but insisted they would act.") == [
        "Police did not confirm the report",
        "Police insisted they would act",
    ]
    assert _claims("He did not confirm or deny the report.") == [
        "He did not confirm",
        "He did not deny the report",
    ]


def test_a_verb_in_a_finite_form_of_its_own_takes_no_auxiliary() -> None:
    assert _claims("The champion is training in Denver and has a title fight in May.") == [
        "The champion is training in Denver",
        "The champion has a title fight in May",
    ]
    assert _claims("The family have filed a report and are worried.") == [
        "The family have filed a report",
        "The family are worried",
    ]
    # a participle or a bare verb shares them as before
    assert _claims("He was arrested and kept in custody.") == [
        "He was arrested",
        "He was kept in custody",
    ]


def test_a_contrasting_clause_does_not_share_the_negation() -> None:
    assert _claims("He was not arrested but charged with fraud.") == [
        "He was not arrested",
        "He was charged with fraud",
    ]
    assert _claims("The firm will open a plant and hire 200 workers.") == [
        "The firm will open a plant",
        "The firm will hire 200 workers",
    ]


def test_clauses_joined_by_a_semicolon_are_claims() -> None:
    """spaCy hangs the first clause off the second's verb (a complement), so only the semicolon
    shows that they are two statements."""
    text = (
        "The light was automated in 1979 and the keepers were withdrawn; their former cottages "
        "now house a small museum."
    )
    assert _claims(text) == [
        "The light was automated in 1979",
        "the keepers were withdrawn",
        "their former cottages now house a small museum",
    ]
    # a list, a semicolon inside brackets or quotation marks: not clauses of the sentence
    assert _claims("The menu has soup; salad; bread.") == ["The menu has soup; salad; bread."]
    quoted = 'He said "we won; they lost" on Monday.'
    assert _claims(quoted) == [quoted]
    first, second = _claims(
        "Prices rise in May (adults pay more; children less); the pass is free."
    )
    assert first.startswith("Prices rise in May (adults pay more; children less")
    assert second == "the pass is free"


def test_a_relative_clause_in_brackets_leaves_no_bracket_behind() -> None:
    assert _claims("The council (which met on Monday) approved the plan.") == [
        "The council approved the plan",
        "The council met on Monday",
    ]


def _described(text: str) -> list[str]:
    (sentence,) = parse(text).sentences
    return [c.text for c in described_claims(sentence)]


def test_an_appositive_says_what_its_noun_is() -> None:
    assert _described("Councillor Tomas Reyes, the committee chair, proposed the plan.") == [
        "Councillor Tomas Reyes is the committee chair"
    ]
    assert _described("The firms, both family-owned businesses, closed.") == [
        "The firms are both family-owned businesses"
    ]
    assert _described("The winner was Jo Lee, a nurse.") == ["Jo Lee is a nurse"]
    text = "Aksel, her cellist son, survives her."
    (sentence,) = parse(text).sentences
    (claim,) = described_claims(sentence)
    # shown where its words stand: the name and the appositive, not the verb
    assert text[claim.start : claim.end] == "Aksel, her cellist son" and claim.arcs


def test_an_appositive_not_set_off_or_misattached_says_nothing() -> None:
    # no commas: part of the name; attached to a preposition's object: a misparse
    assert _described("The challenger Marcus Thorne lost by 412 votes.") == []
    assert _described("The mayor of Dunlow, Beatrice Oyelaran, won by 412 votes.") == []
    # what someone said is theirs
    assert _described('She said "Smith, the mayor, lied" on Monday.') == []


def _dated(text: str, source: str = "") -> list[str]:
    (sentence,) = parse(text).sentences
    return [c.text for c in split_claims(sentence, source)]


def test_an_event_dated_by_an_interval_becomes_a_claim_with_its_year() -> None:
    """ "… in 1968, four years after X" says X happened in 1964: the model reads that year, which
    the source states, where it cannot count the four years."""
    assert _dated("The mill shut in 1968, four years after the town lost its railway station.") == [
        "The mill shut in 1968",
        "the town lost its railway station in 1964",
    ]
    # before counts forward; "the year" is one; a noun is dated with "was"
    assert _dated("The letters went up in 1976, the year before Jackson joined the team.") == [
        "The letters went up in 1976",
        "Jackson joined the team in 1977",
    ]
    assert _dated("The bridge opened in 2001, ten years after the flood.") == [
        "The bridge opened in 2001",
        "the flood was in 1991",
    ]
    (sentence,) = parse("The bridge opened in 2001, ten years after the flood.").sentences
    main, dated = split_claims(sentence, "")
    # the dated claim is shown on the event's words, which are what the split guard reads
    assert as_written(dated) == "the flood"
    assert {t.text for t in dated.tokens} == {"the", "flood"}


def test_an_interval_is_read_as_written_where_it_cannot_be_dated_or_the_source_states_it() -> None:
    plain = "The bridge opened in 2001, ten years after the flood."
    # the source says "ten years after" itself: the model reads it as written
    assert _dated(plain, "It opened ten years after the flood, in 2001.") == [plain]
    # nothing to count from, or two years to choose between
    assert _dated("The plant closed four years after it was sold.") == [
        "The plant closed four years after it was sold."
    ]
    assert _dated("The plant closed in 2010, a year after it was sold in 2008.") == [
        "The plant closed in 2010, a year after it was sold in 2008."
    ]
    # a duration is not an interval between two events
    assert _dated("Bob Barker hosted the show for 35 years before stepping down in 2007.") == [
        "Bob Barker hosted the show for 35 years before stepping down in 2007."
    ]
    # without the source (no check of what it states) nothing is dated
    (sentence,) = parse(plain).sentences
    assert split_claims(sentence) == (sentence,)
