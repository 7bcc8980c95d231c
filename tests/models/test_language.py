"""Texts plainly not in English are named; English ones, quoting other languages or not, and
texts too short or too mixed to tell, are not."""

from __future__ import annotations

import pytest

from models.language import foreign_language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (
            "Bremen wählte 2023 Andreas Bovenschulte zum Bürgermeister, der seit vielen Jahren "
            "in der Stadt lebt.",
            "German",
        ),
        (
            "La maire a déclaré que cette somme serait consacrée aux écoles, mais l'opposition a "
            "voté contre le projet.",
            "French",
        ),
        (
            "El ayuntamiento aprobó el martes un presupuesto de 4,2 millones de euros para las "
            "escuelas y las carreteras.",
            "Spanish",
        ),
        (
            "De gemeenteraad heeft dinsdag een begroting van 4,2 miljoen euro goedgekeurd voor de "
            "scholen en de wegen.",
            "Dutch",
        ),
        (
            "A câmara municipal aprovou na terça-feira um orçamento de 4,2 milhões de euros para "
            "as escolas e as estradas da cidade.",
            "Portuguese",
        ),
        ("Городской совет во вторник утвердил бюджет на школы и дороги.", "Cyrillic script"),
        (
            "市议会周二批准了一项420万欧元的预算，用于城市的学校和道路建设。",
            "Chinese or Japanese script",
        ),
    ],
)
def test_a_text_in_another_language_is_named(text: str, language: str) -> None:
    assert foreign_language(text) == language


@pytest.mark.parametrize(
    "text",
    [
        "The council approved a budget.",  # short: too few words to tell
        "Bremen wählte Bovenschulte.",  # short in German too
        "Le Monde reported that the café on the Rue de la Paix, owned by Jean-Luc Ferrat, had "
        "closed after the flood.",
        "Ferrat told Le Figaro: « nous avons tout perdu » after the flood, and the association "
        "asked the state for aid.",
        "| Name | Role |\n|---|---|\n| Anna Lind | Mayor |\n| Pieter Vos | Director |\n"
        "| Ruth Abernathy | Chair |",
        "4e0de0ec6d5b9df174f54d03158de8f30aac861f a9 c3 e1 de 0f 77 b2 e5 d4 c1 ff",
        "Vasquez beat Tanabe 6-4 3-6 7-5 in the Marbury final on Sunday, her first title.",
        # names that open on another language's function words are not that language
        "Los Angeles, Las Vegas, El Paso, San Diego, La Jolla, Santa Fe, Del Mar, El Centro, "
        "La Mesa, Los Gatos, San Jose and Las Cruces.",
    ],
)
def test_english_and_undecidable_texts_are_not_named(text: str) -> None:
    assert foreign_language(text) is None


def test_one_sentence_in_another_language_is_named_but_names_with_particles_are_not() -> None:
    from models.language import foreign_sentence

    french = (
        "Le musée rouvre en mars après deux ans de travaux, et les visiteurs pourront découvrir "
        "une nouvelle aile consacrée à la peinture de la région."
    )
    assert foreign_sentence(french) == "French"
    # a fifth of its words are German function words ("von", "und"), and it is English
    name = (
        "Paul Ludwig Hans Anton von Beneckendorff und von Hindenburg, known generally as Paul "
        "von Hindenburg, was a German military officer."
    )
    assert foreign_language(name) == "German" and foreign_sentence(name) is None
    assert foreign_sentence("Le musée rouvre en mars.") is None  # too short to tell
    assert foreign_sentence("Городской совет во вторник утвердил бюджет на школы.") == (
        "Cyrillic script"
    )


def test_a_sentence_in_another_language_is_left_unchecked_by_every_checker() -> None:
    from models.checkers.base import PairInput
    from models.parsing import parse
    from models.registry import load_checker

    source = (
        "The Carrow museum will reopen in March after two years of building work. Visitors will "
        "find a new wing devoted to the painting of the region."
    )
    output = (
        "The museum reopens in March after two years of building work.\nLe musée rouvre en "
        "mars après deux ans de travaux, et les visiteurs pourront découvrir une nouvelle aile "
        "consacrée à la peinture de la région."
    )
    src, out = parse(source), parse(output)
    for name in ("lexical", "questions"):
        (scored,) = load_checker(name).score([PairInput(0, src, out)])
        first, second = scored.sentences
        assert first.not_checked != second.not_checked  # the English one is read
        assert second.score is None
        assert second.not_checked == (
            "it reads as French, not English: the models read English only"
        ), name
