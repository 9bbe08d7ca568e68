"""Issue 40 item 7: the catalogues say the key terms of the game in the words of the
source articles of their language (../shared/RULES.md §1 says which seed is which), not
in words of our own: the lines, a foul, Fantasyland, royalties, the scoop, naturals.

Each pin gives the catalogue key, the word its message must hold, and where the word
comes from: the seed file and a quotation of it. The quotation is checked against the
seed when the seeds are there (this repository's sibling ``shared/seeds``), so a pin
cannot cite what an article does not say. Where the seeds disagree, or do not name a
term, docs/rules-decisions.md ("Words of the articles") records the choice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "src/chinese_poker/server/static/i18n"
SEEDS = ROOT.parent / "shared" / "seeds"

BG, HR, RU_CLASSIC, RU_OFC, LV = (
    "000_4922091d1b77865f.txt",  # Bulgarian, OFC after the PokerStars guide
    "001_5b619786903d7872.txt",  # Croatian, the same compilation translated
    "002_1f666df93baa1e9e.txt",  # Russian, classic
    "003_d2fdfb064effd9f1.txt",  # Russian, OFC (HitsPoker School #11)
    "004_f34493564972bb96.txt",  # Latvian, classic ("Capsa Susun")
)


class Pin(NamedTuple):
    lang: str
    key: str
    word: str
    seed: str
    quote: str


PINS = [
    # Bulgarian [000]: the lines as "долната кутия", a foul is a dead hand, Fantasyland
    # is "Фантазия", royalties "роялти".
    Pin("bg", "line.top", "горна", BG, "в горната част"),
    Pin("bg", "line.middle", "средна", BG, "всичките 5 в долната или средната част"),
    Pin("bg", "line.bottom", "долна", BG, "Роялти за долната кутия"),
    Pin("bg", "badge.foul", "мъртва", BG, "ръката се счита за мъртва"),
    Pin("bg", "zone.foul_q", "мъртва ръка", BG, "често ще получавате мъртва ръка"),
    Pin("bg", "board.fl", "фантазия", BG, "правилото „Фантазия“"),
    Pin("bg", "board.royalty_n", "роялти", BG, "Роялти за долната кутия"),
    # Croatian [001]: "donjoj i srednjoj kutiji", a dead hand, "Fantazija", "bonusi".
    Pin("hr", "line.top", "gornja", HR, "gornji"),
    Pin("hr", "line.middle", "srednja", HR, "u donjoj i srednjoj kutiji"),
    Pin("hr", "line.bottom", "donja", HR, "u donjoj i srednjoj kutiji"),
    Pin("hr", "badge.foul", "mrtva", HR, "ruka smatra mrtvom"),
    Pin("hr", "board.fl", "fantazija", HR, "Fantazija"),
    Pin("hr", "board.royalty_n", "bonus", HR, "svim igračima se daju i bonusi"),
    # Russian [003] (the OFC article): "от верхней линии к нижней", "средняя линия
    # старше нижней", a foul is "мертвая рука", "Фантазия", "роялти".
    Pin("ru", "line.top", "верхняя", RU_OFC, "от верхней линии к нижней"),
    Pin("ru", "line.middle", "средняя", RU_OFC, "средняя линия старше нижней"),
    Pin("ru", "line.bottom", "нижняя", RU_OFC, "от верхней линии к нижней"),
    Pin("ru", "zone.to_middle", "средняя", RU_OFC, "средняя линия старше нижней"),
    Pin("ru", "badge.foul", "мёртвая", RU_OFC, "Скуп или мертвая рука"),
    Pin("ru", "zone.foul_q", "мёртвая рука", RU_OFC, "Каждый обладатель мертвой руки"),
    Pin("ru", "item.foul", "мёртвая рука", RU_OFC, "Каждый обладатель мертвой руки"),
    Pin("ru", "board.fl", "фантазия", RU_OFC, "Фантазия – скорее, небольшое дополнение"),
    Pin("ru", "board.royalty_n", "роялти", RU_OFC, "собрать максимальное роялти"),
    Pin(
        "ru",
        "item.royalties",
        "роялти",
        RU_CLASSIC,
        "Все оставшиеся в раздаче игроки обьявляют свои роялти",
    ),
    # Latvian [004] (classic): the hands are "priekšējā", "vidējā", "aizmugurējā".
    Pin("lv", "line.top", "priekšējā", LV, "priekšējā roka tiek novietota"),
    Pin("lv", "line.middle", "vidējā", LV, "vidējā roka tiek novietota"),
    Pin("lv", "line.bottom", "aizmugurējā", LV, "Aizmugurējā roka ir novietota"),
]


def _catalogue(lang: str) -> dict[str, object]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def _plain(text: str) -> str:
    # The articles write "мертвая" where the catalogues print "мёртвая".
    return text.lower().replace("ё", "е")


@pytest.mark.parametrize("pin", PINS, ids=[f"{p.lang}-{p.key}" for p in PINS])
def test_a_key_term_is_the_articles_word(pin: Pin) -> None:
    message = _catalogue(pin.lang)[pin.key]
    assert isinstance(message, str)
    assert _plain(pin.word) in _plain(message), (pin.key, message, pin.word)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seeds are not beside this repository")
@pytest.mark.parametrize("pin", PINS, ids=[f"{p.lang}-{p.key}" for p in PINS])
def test_the_quotation_is_in_the_seed(pin: Pin) -> None:
    seed = (SEEDS / pin.seed).read_text(encoding="utf-8")
    assert pin.quote in seed, (pin.seed, pin.quote)
    assert _plain(pin.word)[:4] in _plain(pin.quote), (pin.word, pin.quote)  # the stem


def test_no_russian_message_says_fol_where_the_article_says_a_dead_hand() -> None:
    """What the table shows of a foul (badges, the question, the breakdown, the desk)
    is the OFC article's "мёртвая рука" throughout, not a mix with "фол"."""
    shown = ["mark.foul", "mark.fouled", "mark.foul_against", "mark.they_fouled",
             "item.foul", "item.foul_both", "badge.foul", "zone.foul_q", "term.fouled",
             "desk.foul_flag", "desk.fouled_list", "desk.col.foul", "hints.foul",
             "foul.risk_so_far", "foul.risk_ahead", "board.foul_warning"]  # fmt: skip
    ru = _catalogue("ru")
    mixed = {key: ru[key] for key in shown if "фол" in _plain(str(ru[key]))}
    assert not mixed, mixed
