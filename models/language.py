"""Whether a text is written in English, the only language the bundled models read.

The NLI model, the arc and support heads, the parser and the question-based check were all
trained on English. On another language they still return numbers: a faithful German summary
("Bremen wählte 2023 Andreas Bovenschulte zum Bürgermeister.") scored 0.24, a red flag that says
nothing about it. :func:`foreign_language` names the language of a text that is plainly not
English, so that analysis reports such a pair not checked, with the reason, instead of scoring it.

It reads two things, and decides only when they are plain:
- the letters' script: a text of 20 letters or more, more than half of them outside the Latin
  alphabet, is in that script ("Cyrillic", "Chinese or Japanese", ...);
- function words, the short words every sentence of a language is built with: a text of 12
  words or more where English ones are under 6% of the words and those of one of six other
  languages written in Latin letters (German, French, Spanish, Italian, Dutch, Portuguese) make
  at least 15%. English prose runs at 25-45% of its own (the demo's and the probes' sources;
  median 35%); a list of names, a table or a code block has few function words of any
  language and is read as English.
Function words are counted where they are written in lower case or open a sentence: one that
opens a name inside a sentence ("Los Angeles", "La Jolla") says nothing of the text's language.
A word that is a function word of English and of another language ("a", "in", "an", "as")
counts for neither, and a word of another language that is also an English word is not
counted for it, so an English text that quotes a foreign name or phrase stays English.
"""

from __future__ import annotations

import unicodedata
from collections import Counter

#: Fewest words for the function-word test, and fewest letters for the script test.
MIN_WORDS = 12
MIN_LETTERS = 20
#: English function words under this share of the words, another language's at or over that one.
ENGLISH_BELOW = 0.06
OTHER_AT_LEAST = 0.15

#: What is stripped from a word's ends: punctuation and quotes.
_EDGES = ".,;:!?()[]{}\"'«»“”‘’…-–—*"
#: What may close a sentence after its end mark.
_CLOSING = "\"'»”’)]"

ENGLISH = frozenset(
    """the of and to a an in is was were be been are for that on with as it its by at from he
    she his her they their them this these those which who whom or but not no will would said
    has have had than more about up all also we you i our there when into after over out can
    could should may might do does did so if what one two new other""".split()
)

#: Function words of other languages written in Latin letters.
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    language: frozenset(words.split())
    for language, words in {
        "German": """der die das und ist nicht ein eine einen einem einer zu den mit von in an
            sich des auf für im dem auch es wird wurde nach bei aus zum zur sind hat werden noch
            über wie oder nur vor sie ich wir ihr sein seine durch gegen unter""",
        "French": """le la les des et est une du que qui dans pour pas sur au avec ce il a
            elle sont par plus ont été aux ne se sa ses leur cette mais ou nous vous être
            comme fait entre sans""",
        "Spanish": """el los las y es una del que en por con para se su al lo como más a
            pero sus fue ha está son muy entre sin sobre también hasta desde donde este esta""",
        "Italian": """il gli e è una del della che di per non con si sono da nel alla a in
            anche come più ha dei delle nella questo questa ma essere stato tra""",
        "Dutch": """de het een en van niet op te dat voor met zijn er aan ook als bij in
            maar om nog werd wordt naar dan uit hij zij wij heeft hebben deze dit""",
        "Portuguese": """o os a as e é um uma do da dos das que em não para com se por mais foi
            ao no na seu sua pelo pela são está também como mas""",
    }.items()
}
#: The words each language is told by: a word that is a function word of English and of
#: another language ("a", "in", "an", "as") counts for neither.
_SHARED = ENGLISH & frozenset().union(*_FUNCTION_WORDS.values())
ENGLISH_OWN = ENGLISH - _SHARED
OTHERS = {language: words - ENGLISH for language, words in _FUNCTION_WORDS.items()}

#: The first word of a letter's Unicode name, as a script's name in a reason.
_SCRIPTS = {
    "CJK": "Chinese or Japanese",
    "HIRAGANA": "Japanese",
    "KATAKANA": "Japanese",
    "HANGUL": "Korean",
    "CYRILLIC": "Cyrillic",
    "ARABIC": "Arabic",
    "HEBREW": "Hebrew",
    "GREEK": "Greek",
    "DEVANAGARI": "Devanagari",
    "THAI": "Thai",
}


def _latin(ch: str) -> bool:
    code = ord(ch)
    return code < 0x250 or 0x1E00 <= code <= 0x1EFF


def _script(letters: list[str]) -> str:
    names = Counter(unicodedata.name(ch, "OTHER").split()[0] for ch in letters)
    first = names.most_common(1)[0][0]
    return _SCRIPTS.get(first, first.title())


def _function_word_candidates(text: str) -> list[str]:
    """The text's words of letters only (an id such as "4e0de0ec6d" holds none), lower-cased;
    a capitalised word inside a sentence is kept as "" (counted, never a function word): a
    function word that starts a name ("Los Angeles", "De Niro", "La Jolla") says nothing of the
    language the text is written in."""
    out = []
    starts = True
    for token in text.split():
        word = token.strip(_EDGES)
        if word.isalpha():
            out.append(word.lower() if starts or word.islower() else "")
        starts = token.rstrip(_CLOSING).endswith((".", "!", "?", ":"))
    return out


def foreign_language(text: str) -> str | None:
    """The language (or script) of a text that is plainly not English ("German", "Cyrillic
    script"); None for English, and for a text too short or too mixed to tell."""
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) >= MIN_LETTERS:
        other = [ch for ch in letters if not _latin(ch)]
        if len(other) * 2 > len(letters):
            return f"{_script(other)} script"
    words = _function_word_candidates(text)
    n = len(words)
    if n < MIN_WORDS:
        return None
    if sum(w in ENGLISH_OWN for w in words) >= ENGLISH_BELOW * n:
        return None
    shares = {lang: sum(w in fw for w in words) / n for lang, fw in OTHERS.items()}
    language, share = max(shares.items(), key=lambda kv: kv[1])
    return language if share >= OTHER_AT_LEAST else None


def foreign_sentence(text: str) -> str | None:
    """The language of one sentence of an English text that is plainly in another one: as
    :func:`foreign_language` reads it, and with no function word of English's own at all. One
    sentence is short, so a name with lower-case particles reads as a language of its own ("Paul
    Ludwig Hans Anton von Beneckendorff und von Hindenburg, known generally as Paul von
    Hindenburg, was ..." is a fifth German function words); its "was" keeps it English."""
    language = foreign_language(text)
    if language is None or language.endswith(" script"):
        return language
    if any(word in ENGLISH_OWN for word in _function_word_candidates(text)):
        return None
    return language
