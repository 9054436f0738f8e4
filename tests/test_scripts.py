import re

import pytest

from scope_recall_engine.companion import vectors
from scope_recall_engine.reading import retrieval, scripts
from scope_recall_engine.reading.scripts import in_latin, spells
from scope_recall_engine.truth.principals import human
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import lifecycle

ME = human("tester")


@pytest.mark.parametrize(("word", "name"), [
    ("زارا", "Zara"), ("سلمى", "Salma"), ("يوسف", "Youssef"), ("وزارا", "Zara"),  # Arabic: its consonants; "and Zara"
    ("عمر", "Omar"), ("أحمد", "Ahmed"),  # a name opening with a vowel: with ain or alef
    ("فاطمة", "Fatima"), ("ساره", "Sarah"), ("ساره", "Sara"),  # a feminine ending, written or left out
    ("Ірини", "Iryna"), ("Віктора", "Viktor"), ("Оленой", "Olena"),  # Ukrainian and Russian: case endings
    ("하은이", "Ha-eun"), ("콩이가", "Kongi"), ("Μαρία", "Maria"), ("राहुल", "Rahul"),  # particles; vowels written
    ("עומר", "Omer"), ("רונן", "Ronen"), ("דוד", "David"),  # Hebrew's vav, a vowel or a v
    ("שירה", "Shira"), ("לשירה", "Shira"), ("רחל", "Rachel"), ("פיתה", "Pita"),  # one sound, one or two letters; "to"
    ("خالد", "Khalid"),  # Arabic's kh as its Latin spelling writes it
])
def test_a_name_in_another_script_spells_the_latin_name(word, name):
    assert spells(word, name)


@pytest.mark.parametrize(("word", "name"), [
    ("해도", "Head"),  # "even if I do": its vowels are not the name's
    ("Оленка", "Olga"),  # another name sharing a first letter
    ("زر", "Zara"),  # a button: two letters are no name of three
    ("بدالها", "Abdullah"),  # "instead of it": Abdullah's consonants, but a name opening with a vowel opens with alef
    ("Виктория", "Viktor"),  # Viktoria is more than Viktor with an ending
    ("שיר", "Omer"), ("של", "Shira"),  # a song is not Omer; "of" (two letters) is no Shira
    ("מתחילה", "Tel"),  # "starting": two letters (t, h) are not one sound (th)
])
def test_a_word_in_another_script_spells_no_other_name(word, name):
    assert not spells(word, name)


def _store(db, identity, facts):
    ids = {key: lifecycle.store(db, identity, "memory", text, ME).id for key, text in facts.items()}
    vectors.drain(db)
    return ids


def test_only_the_names_of_the_views_own_memories_are_said_in_latin(db):
    """Names come from the memories the view may see: Layla's "زارا" is Zara, Omar's is left as typed; a word among
    the language's commonest ("من", who) is no name though it has Mona's consonants, while "منى" is Mona; and a word
    that spells two names ("Zora" too) is left as typed."""
    layla, omar = Identity(user="layla", chat="c1"), Identity(user="omar", chat="c1")
    _store(db, layla, {"zara": "Layla's daughter Zara starts nursery on 5 January.",
                       "mona": "Her sister Mona lives in Alexandria."})
    _store(db, omar, {"work": "Omar works night shifts at the port."})
    assert in_latin(db, View(layla.accessible()), "امتى زارا بتبدأ الحضانة؟") == "امتى Zara بتبدأ الحضانة؟"
    assert in_latin(db, View(omar.accessible()), "امتى زارا بتبدأ الحضانة؟") == "امتى زارا بتبدأ الحضانة؟"
    assert in_latin(db, View(layla.accessible()), "من منى؟") == "من Mona؟"
    _store(db, layla, {"zora": "Her neighbour Zora feeds the cat."})
    assert in_latin(db, View(layla.accessible()), "امتى زارا بتبدأ الحضانة؟") == "امتى زارا بتبدأ الحضانة؟"


def test_a_hyphenated_name_is_one_word_in_hangul(db, monkeypatch):
    """Korean names are romanized in two syllables joined ("Min-jae"), and written as one word in Hangul ("민재"):
    the word names the whole, not its first syllable, and "Min-ho" is still "민호" beside "Min"; control: read by
    its parts only, "민재" spells no name (three letters more than "Min")."""
    someone = Identity(user="jiyeon", chat="c1")
    _store(db, someone, {"brother": "Her younger brother Min-jae is in the Navy and is discharged in May.",
                         "cousin": "Her cousin Min-ho lives in Daegu."})
    view = View(someone.accessible())
    assert in_latin(db, view, "민재 전역 몇 월이었지?") == "Min-jae 전역 몇 월이었지?"
    assert in_latin(db, view, "민호 언제 와?") == "Min-ho 언제 와?"
    monkeypatch.setattr(scripts, "_HYPHENATED", re.compile("(?!)"))
    assert in_latin(db, view, "민재 전역 몇 월이었지?") == "민재 전역 몇 월이었지?"


@pytest.mark.parametrize(("lookup", "wanted", "world"), [
    ("امتى زارا بتبدأ الحضانة؟", "zara", "ايه عاصمة أستراليا؟"),  # when does Zara start nursery? / capital of Australia
    ("коли в Ірини день народження?", "iryna", "яка столиця Австралії?"),  # when is Iryna's birthday?
    ("민호 전역 언제였지?", "minho", "호주의 수도가 어디야?"),  # when was Min-ho's discharge from service?
    ("מתי יום ההולדת של עומר?", "omer", "מה עיר הבירה של אוסטרליה?"),  # when is Omer's birthday?
])
def test_a_lookup_naming_someone_in_another_script_recalls_them_and_a_world_question_nothing(db, lookup, wanted,
                                                                                              world):
    """The memories spell her people in Latin letters; asked after by name in Arabic, Ukrainian, Korean or Hebrew, the
    memory is recalled first; a question about the world in the same language recalls nothing, in the same store."""
    someone = Identity(user="noor", chat="c1")
    ids = _store(db, someone, {"zara": "Her daughter Zara starts nursery on 5 January.",
                               "iryna": "Her daughter Iryna's birthday is 14 March.",
                               "minho": "Her brother Min-ho finishes his military service on 2 June.",
                               "omer": "Her boyfriend Omer's birthday is 3 August.",
                               "coffee": "She drinks two lattes a day."})
    view = View(someone.accessible())
    found = retrieval.search(db, view, lookup)
    assert [hit.id for hit in found][:1] == [ids[wanted]] and found.read_as  # read with the name as spelt
    assert retrieval.search(db, view, world).hits == []

