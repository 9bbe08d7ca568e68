"""The five languages' words: one catalogue per language for the terminal, the browser and
the study desk.

The catalogues are JSON, ``chinese_poker/server/static/i18n/<lang>.json`` (package data,
served to the browser as ``/static/i18n/<lang>.json``): one key per message, ``{name}``
placeholders, and a message that depends on a count is an object of plural forms keyed by
the categories of ``Intl.PluralRules`` (``zero``, ``one``, ``few``, ``many``, ``other``),
picked by the count given as ``n`` (or ``count``). The browser reads them with
``static/js/i18n.js``; Python reads them here, with the same rules: a key a language lacks
falls back to English, and a key no catalogue has shows as itself.

:func:`t` speaks the language in use (:func:`use_language`; English at first);
:func:`text_in` a given one, so a library result can be English whatever a command
speaks. Every command that prints words for people speaks its ``--lang`` or the
environment's language (:func:`pick_language`).

>>> use_language("ru")
>>> hand_name(evaluate_text("Kh Kd Ks Kc 2h"))
'Каре королей'
>>> t("zone.session_over")
'Сессия окончена.'
>>> t("term.you_quit_after_n_hands", n=5)
'Вы вышли после 5 законченных рук'
>>> use_language("en")
>>> hand_name(evaluate_text("Kh Kd Ks Kc 2h"))
'Four kings'
>>> text_in("en", "item.scoop", who="Ann")
'scoop bonus: Ann won all three lines'
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from chinese_poker.cards import RANKS, parse_cards
from chinese_poker.evaluate import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    ONE_PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    category,
    describe,
    evaluate,
    evaluate3,
    key_ranks,
)

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "PLACEHOLDER",
    "catalogue",
    "current_language",
    "default_name",
    "evaluate_text",
    "hand_name",
    "language_from_env",
    "pick_language",
    "plural_category",
    "rank_word",
    "t",
    "text_in",
    "use_language",
    "words_for",
]

#: The languages of the source articles, each named in its own words.
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "bg": "Български",
    "hr": "Hrvatski",
    "ru": "Русский",
    "lv": "Latviešu",
}
DEFAULT_LANGUAGE = "en"
#: A placeholder in a message: ``{name}``, as the browser's i18n.js fills it.
PLACEHOLDER = re.compile(r"\{(\w+)\}")

_in_use = {"lang": DEFAULT_LANGUAGE}


@cache
def catalogue(lang: str) -> Mapping[str, str | Mapping[str, str]]:
    """The catalogue of ``lang``: key -> message (or plural forms), as the browser gets it."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use one of {', '.join(LANGUAGES)}")
    path = resources.files("chinese_poker").joinpath("server", "static", "i18n", f"{lang}.json")
    data: dict[str, str | Mapping[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def plural_category(lang: str, n: float) -> str:
    """The plural category of the count ``n`` in ``lang``, as ``Intl.PluralRules`` names it
    (the CLDR rules for whole numbers; a fraction is ``other``).

    >>> [plural_category("ru", n) for n in (1, 3, 5, 11, 21, 22, 25)]
    ['one', 'few', 'many', 'many', 'one', 'few', 'many']
    >>> [plural_category("lv", n) for n in (0, 1, 2, 11, 21)]
    ['zero', 'one', 'other', 'zero', 'one']
    """
    if n != int(n):
        return "other"
    n = abs(int(n))
    last, last_two = n % 10, n % 100
    if lang in ("ru", "hr"):
        if last == 1 and last_two != 11:
            return "one"
        if 2 <= last <= 4 and not 12 <= last_two <= 14:
            return "few"
        return "many" if lang == "ru" else "other"
    if lang == "lv":
        if last == 0 or 11 <= last_two <= 19:
            return "zero"
        return "one" if last == 1 else "other"
    return "one" if n == 1 else "other"


def _message(lang: str, key: str, values: Mapping[str, Any]) -> str | None:
    msg = catalogue(lang).get(key)
    if msg is None or isinstance(msg, str):
        return msg
    count = values.get("n", values.get("count", 0))
    return msg.get(plural_category(lang, count), msg["other"])


def text_in(lang: str, key: str, /, **values: Any) -> str:
    """The message ``key`` in ``lang`` with its ``{name}`` placeholders filled from
    ``values``; English when ``lang`` lacks it, the key itself when no catalogue has it.
    A placeholder without a value stays as it is."""
    msg = _message(lang, key, values)
    if msg is None:
        msg = _message(DEFAULT_LANGUAGE, key, values)
    if msg is None:
        msg = key
    return PLACEHOLDER.sub(
        lambda m: str(values[m[1]]) if m[1] in values else m[0],
        msg,
    )


def t(key: str, /, **values: Any) -> str:
    """The message ``key`` in the language in use (:func:`text_in`)."""
    return text_in(_in_use["lang"], key, **values)


@cache
def _english_keys() -> Mapping[str, str]:
    keys: dict[str, str] = {}
    for key, msg in catalogue(DEFAULT_LANGUAGE).items():
        if isinstance(msg, str):
            keys.setdefault(msg, key)
    return keys


def words_for(english: str) -> str:
    """An English word or phrase of the catalogue in the language in use, or itself when
    the catalogue does not hold it (for labels that come as English data, e.g. a
    solution's field names)."""
    key = _english_keys().get(english)
    return english if key is None else t(key)


def current_language() -> str:
    """The language in use now (a key of :data:`LANGUAGES`)."""
    return _in_use["lang"]


def use_language(lang: str) -> None:
    """Speak ``lang`` from now on; an unknown language is a :class:`ValueError`."""
    catalogue(lang)  # an unknown language or a missing catalogue fails here, not later
    _in_use["lang"] = lang


def default_name() -> str:
    """The person's name at the table when none is given ("You" in English)."""
    return t("lobby.you")


def pick_language(given: str | None, env: Mapping[str, str] | None = None) -> str:
    """The language a command speaks: ``given`` (its ``--lang``) if any, else the
    environment's (:func:`language_from_env`), else English. The one place every
    command chooses; an unknown ``given`` is a :class:`ValueError` naming the choices.

    >>> pick_language("RU"), pick_language(None, {"LANG": "hr_HR.UTF-8"}), pick_language(None, {})
    ('ru', 'hr', 'en')
    >>> pick_language("de")
    Traceback (most recent call last):
    ...
    ValueError: unknown language 'de' for --lang; use one of en, bg, hr, ru, lv
    """
    if given is None:
        return language_from_env(env)
    lang = given.strip().lower()
    if lang not in LANGUAGES:
        raise ValueError(
            f"unknown language {given!r} for --lang; use one of {', '.join(LANGUAGES)}"
        )
    return lang


def language_from_env(env: Mapping[str, str] | None = None) -> str:
    """The first of our languages the environment asks for, the way gettext reads it
    (``LANGUAGE`` may list several, ``ru:en``); English when none is ours.

    >>> language_from_env({"LANG": "lv_LV.UTF-8"}), language_from_env({"LANGUAGE": "de:hr"})
    ('lv', 'hr')
    >>> language_from_env({"LC_ALL": "C.UTF-8", "LANG": "ru_RU.UTF-8"})
    'en'
    """
    env = os.environ if env is None else env
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if not value:
            continue
        for tag in value.split(":"):
            primary = tag.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
            if primary in LANGUAGES:
                return primary
        if var != "LANGUAGE":  # the first locale variable set decides (C means English)
            return "en"
    return "en"


# --------------------------------------------------------------------------- hand names


def rank_word(rank: int) -> str:
    """A rank's name in the language in use (0 is the deuce, 12 the ace)."""
    return t(f"rank.{RANKS[rank]}")


def _ranks(rank: int) -> str:
    # The form after "pair of" (a genitive plural in the Slavic and Baltic languages).
    return t(f"ranks.{RANKS[rank]}")


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _made_hand(cat: int, value: int, ks: tuple[int, ...]) -> str | None:
    """The name of a straight, flush or a hand of sets; None for a pair or high card."""
    if cat == STRAIGHT_FLUSH and ks[0] == 12:
        return t("hand.royal_flush")
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        flush = cat == STRAIGHT_FLUSH
        if (value >> 12) & 15 == 1:  # the second-highest wheel
            return t("hand.straight_flush_wheel" if flush else "hand.straight_wheel")
        return t("hand.straight_flush" if flush else "hand.straight", rank=rank_word(ks[0]))
    if cat == FOUR_OF_A_KIND:
        return t("hand.quads", ranks=_ranks(ks[0]))
    if cat == FULL_HOUSE:
        return t("hand.full_house", ranks=_ranks(ks[0]), ranks2=_ranks(ks[1]))
    if cat == FLUSH:
        return t("hand.flush", rank=rank_word(ks[0]))
    if cat == THREE_OF_A_KIND:
        return t("hand.trips", ranks=_ranks(ks[0]))
    if cat == TWO_PAIR:
        return t("hand.two_pair", ranks=_ranks(ks[0]), ranks2=_ranks(ks[1]))
    return None


def hand_name(value: int) -> str:
    """The name of a line value in the language in use (English: ``describe``)."""
    if current_language() == DEFAULT_LANGUAGE:
        return describe(value)
    cat = category(value)
    ks = tuple(key_ranks(value))
    made = _made_hand(cat, value, ks)
    if made is not None:
        return _capital(made)
    kick = ", ".join(RANKS[r] for r in ks[1:])
    if cat == ONE_PAIR:
        if len(ks) == 2:
            return _capital(t("hand.pair_kicker", ranks=_ranks(ks[0]), rank=rank_word(ks[1])))
        return _capital(t("hand.pair_kickers", ranks=_ranks(ks[0]), kickers=kick))
    if kick:
        return _capital(t("hand.high_card_then", rank=rank_word(ks[0]), kickers=kick))
    return _capital(t("hand.high_card", rank=rank_word(ks[0])))


def evaluate_text(text: str) -> int:
    """The value of a line typed as text (``"Qh Qd 7c"``): for examples and tests."""
    cards = parse_cards(text)
    return evaluate3(*cards) if len(cards) == 3 else evaluate(cards)
