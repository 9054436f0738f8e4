"""Names written in another script: "امتى زارا بتبدأ الحضانة؟" asks after Zara, "коли в Ірини др?" after Iryna,
"하은이 이유식 추천해줘" for Ha-eun. People who write Arabic, Cyrillic, Greek, Hebrew, Hangul or Devanagari write
the people, pets and places of their lives in it too, while their memories (the digest's, the agent's, their own in
English) spell them in Latin letters. Each word of the query in another script (not one written without spaces, as
Thai and Japanese are, where a "word" is a phrase) is transliterated (``anyascii``) and compared with the names the
view's memories mention (the entity index); a word that matches one name is replaced by it, as the memories spell
it, so the word lanes, the names of kin and the vector lane all see "Zara". Compared how each script writes:

- an abjad (Arabic, Hebrew) writes few vowels: the two must have the same consonants ("زارا" and "Zara": z-r), open
  alike (a name that opens with a vowel, "Abdullah", opens with alef or ain, "عبدالله", not as "بدالها", instead
  of it, does) and the word have three letters at least; Arabic and Hebrew may join "and", "for", "with", "to" to
  the front of a word ("وزارا", "לשירה"), a name's feminine ending is often left out in Latin letters ("فاطمة":
  Fatima, "שירה": Shira), Hebrew's vav is a vowel as often as a v ("עומר": Omer, "דוד": David), and a sound that
  one script writes with one letter and Latin with two or with either of two counts as one ("sh", "ch" and "kh",
  "th", "ph", "p" and "f", "b" and "v": "רחל" is Rachel, "פיתה" Pita);
- an alphabet or a syllabary writes them: the word must begin with the name's stem, its last vowels off, and be
  at most ENDING letters longer than the name, room for a case ending or a particle ("Ірини" of Iryna, "Віктора"
  of Viktor, "콩이가" of Kongi) and no more ("Виктория" is not Viktor).

A word among its language's commonest (``reference.COMMON_ZIPF``: "من", "что") is never a name, and a word that
matches two names is left as typed."""

from __future__ import annotations

import collections
import functools
import re
import unicodedata

from anyascii import anyascii

from scope_recall_engine.companion import reference
from scope_recall_engine.truth.visibility import VISIBLE, View

ENDING = 2  # letters an inflected or particled name may add ("Оленой" of Olena, "콩이가" of Kongi)
STEM = 3  # letters a name's stem needs before words may be compared with it: fewer match too many words
CONSONANTS = 2  # consonants an abjad's name needs ("زارا": z-r) ...
ABJAD_LETTERS = 3  # ... and letters its word needs: "زر" (a button) has Zara's consonants and is no name
_ABJAD = re.compile(r"[\u0590-\u05ff\u0600-\u06ff]")
_ABJAD_PREFIXES = "وبلفك" "ולבמ"  # Arabic's "and", "with", "for", "so", "as"; Hebrew's "and", "to", "in", "from"
_FEMININE_ENDINGS = "ةهה"  # a final ta marbuta or ha, which Latin spellings often leave out ("فاطمة": Fatima)
_VAV = "ו"  # Hebrew's vav: "v" in "דוד" (David), "o" or "u" in "עומר" (Omer)
_ONE_SOUND = {"sh": "s", "ch": "h", "kh": "h", "th": "t", "ph": "f", "ck": "k", "tz": "z", "ts": "z", "c": "k",
              "q": "k", "p": "f", "b": "v"}  # a sound written with two letters or either of two, as one letter
_SOUNDS = re.compile("|".join(sorted(_ONE_SOUND, key=len, reverse=True)))
_VOWEL_OPENINGS = "اأإآعءאע"  # the letters a name that opens with a vowel opens with ("Omar": عمر, "Ahmed": أحمد)
_OTHER_SCRIPT = re.compile(r"[^\W\d_a-zA-Z\u00c0-\u024f\u1e00-\u1eff]")  # a letter outside Latin's (Vietnamese's too)
_WORD = re.compile(r"\w+")
_HYPHENATED = re.compile(r"\w+(?:-\w+)+")  # a name of joined parts ("Min-jae", "Al-Hilal"), one word in Hangul, Arabic
_WRITTEN_IN = {"ARABIC": ("ar", "fa"), "HEBREW": ("he",), "CYRILLIC": ("ru", "uk", "bg"), "GREEK": ("el",),
               "DEVANAGARI": ("hi",)}  # the languages whose frequencies ship, by script
_UNSPACED = ("THAI", "LAO", "KHMER", "MYANMAR", "TIBETAN", "CJK", "HIRAGANA", "KATAKANA")  # a "word" of theirs is a
# phrase: a name inside it is not a word of its own
latin = functools.lru_cache(maxsize=65536)(anyascii)  # a word in Latin letters, once per process
_NAMES = f"""select distinct l.name from memories m join memory_entities l on l.memory_id = m.id
             where m.id >= :since and {VISIBLE}"""


def in_latin(db, view: View, query: str, since: int = 0) -> str:
    """The query with each word in another script that names one of the view's names written as the memories
    write it; names are read from the memories from row ``since`` on (a large view's newest, where its words are
    counted too: ``retrieval.word_window``)."""
    if not _OTHER_SCRIPT.search(query):  # most queries: one look, no word by word
        return query
    foreign = {word for word in _WORD.findall(query) if script(word) not in (None, *_UNSPACED) and not common(word)}
    if not foreign:
        return query
    names = collections.defaultdict(set)  # by consonants and by stem: a word is compared with the few it may spell
    for (name,) in db.execute(_NAMES, {**view.params(), "since": since}):
        for part in _WORD.findall(name) + _HYPHENATED.findall(name):  # "Min-jae" is "민재", one word in Hangul
            if not _OTHER_SCRIPT.search(part) and not part.isdigit():
                names[consonants(part)].add(part)
                names[_stem(part)].add(part)
    said = {word: name for word in foreign
            if (name := _one_name(word, {name for key in _keys(word) for name in names.get(key, ())
                                         if spells(word, name)}))}
    return _WORD.sub(lambda word: said.get(word.group(0), word.group(0)), query) if said else query


def _one_name(word: str, found: set[str]) -> str | None:
    """The one name ``word`` spells: of several, the one whose consonants are the word's ("민호" is Min-ho, not Min
    nor Min-jae, whose "jae" reads as vowels); none if that leaves more than one."""
    if len(found) > 1:
        found = {name for name in found if consonants(name) == consonants(latin(word))}
    return next(iter(found)) if len(found) == 1 else None


def _keys(word: str) -> list[str]:
    """What a name ``word`` may spell is found under: the consonants of each of its forms (an abjad's word,
    ``_abjad_forms``), or each beginning of it as a stem."""
    if _ABJAD.search(word):
        return [_written(form) for form in _abjad_forms(word)]
    said = _letters(latin(word))
    return [said[:end] for end in range(STEM, len(said) + 1)]


def spells(word: str, name: str) -> bool:
    """Whether ``word``, in another script, writes ``name`` (Latin letters)."""
    if _ABJAD.search(word):
        wanted, opens = consonants(name), name[:1].lower() in "aeiou"
        return len(wanted) >= CONSONANTS and any(
            len(form) >= ABJAD_LETTERS and (form[0] in _VOWEL_OPENINGS) == opens and _written(form) == wanted
            for form in _abjad_forms(word))
    stem, said = _stem(name), _letters(latin(word))
    return len(stem) >= STEM and said.startswith(stem) and len(said) - len(_letters(name)) <= ENDING


def _abjad_forms(word: str) -> list[str]:
    """An abjad's word as written, without a joined "and", "for" or "with", without a feminine ending, and with
    Hebrew's vav read as a vowel."""
    joined = [word, *([word[1:]] if word[0] in _ABJAD_PREFIXES else [])]
    ended = joined + [form[:-1] for form in joined if form[-1] in _FEMININE_ENDINGS]
    return ended + [form[0] + form[1:].replace(_VAV, "") for form in ended if _VAV in form[1:]]


def _stem(name: str) -> str:
    """A Latin name's letters with its last vowels off ("Olena": olen), which an inflected form begins with."""
    return _letters(name).rstrip("aeiou")


@functools.lru_cache(maxsize=65536)
def consonants(name: str) -> str:
    """A Latin name's consonants, each sound one letter and each once in a row ("Youssef": s-f; "Muhammad": m-h-m-d;
    "Rachel": r-h-l)."""
    return _skeleton(_one_sound(_letters(name)))


@functools.lru_cache(maxsize=65536)
def _written(form: str) -> str:
    """An abjad's word's consonants as ``consonants`` reads a name's, its letters said one by one, so that two of
    them are never read as one sound ("מתחילה", starting, is m-t-h-l, not Tel's t-l)."""
    return _skeleton("".join(_one_sound(_letters(latin(letter))) for letter in form))


def _one_sound(letters: str) -> str:
    return _SOUNDS.sub(lambda found: _ONE_SOUND[found.group(0)], letters)


def _skeleton(letters: str) -> str:
    return re.sub(r"(.)\1+", r"\1", re.sub(r"[aeiouyw]", "", letters))


@functools.lru_cache(maxsize=65536)
def _letters(text: str) -> str:
    """Lower-case Latin letters only, "y" and "j" read as the "i" that transliterations write for them."""
    return re.sub(r"[^a-z]", "", text.lower()).replace("y", "i").replace("j", "i")


def script(word: str) -> str | None:
    """The script of the word's first letter outside Latin's ("ARABIC", "CYRILLIC", "HANGUL"), if it has one."""
    found = _OTHER_SCRIPT.search(word)
    return unicodedata.name(found.group(0), "?").split(" ")[0] if found else None


def common(word: str) -> bool:
    """Whether the word is among the commonest of a language written in its script: a word, not a name."""
    return any(reference.frequency(word.lower(), language) >= reference.COMMON_ZIPF
               for language in _WRITTEN_IN.get(script(word), ()))
