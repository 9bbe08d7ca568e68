"""The terminal game's words in the player's language: gettext with Babel catalogues.

The messages are English in the code (marked ``_("...")``, ``ngettext`` and ``N_`` for
constants); ``chinese_poker/locale/<lang>/LC_MESSAGES/chinese_poker.po`` holds
each language and the compiled ``.mo`` beside it is what runs (``scripts/i18n`` extracts
and compiles them with Babel; tests/test_i18n.py checks that every catalogue has every
message, that the placeholders match and that the ``.mo`` files are fresh). Every
command that prints words for people speaks the language of its ``--lang`` or, without
it, of the environment the way gettext reads it (``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES``, ``LANG``); English otherwise (:func:`pick_language`). The game is
translated whole; the other commands use the words they share with it (line and hand
names, settlement notes, column headings).

Hand names: English is :func:`chinese_poker.evaluate.describe` itself; another language
builds the same name from the value's category and key ranks with its own words.

>>> use_language("ru")
>>> hand_name(evaluate_text("Kh Kd Ks Kc 2h"))
'Каре королей'
>>> _("The session is over.")
'Сессия окончена.'
>>> use_language("en")
>>> hand_name(evaluate_text("Kh Kd Ks Kc 2h"))
'Four kings'
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path

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
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "_",
    "current_language",
    "default_name",
    "hand_name",
    "language_from_env",
    "ngettext",
    "pick_language",
    "rank_word",
    "use_language",
]

#: The languages of the source articles, each named in its own words.
LANGUAGES: Mapping[str, str] = {
    "en": "English",
    "bg": "Български",
    "hr": "Hrvatski",
    "ru": "Русский",
    "lv": "Latviešu",
}
DOMAIN = "chinese_poker"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

_state: dict[str, gettext.NullTranslations | str] = {
    "tr": gettext.NullTranslations(),
    "lang": "en",
}


def _tr() -> gettext.NullTranslations:
    tr = _state["tr"]
    assert isinstance(tr, gettext.NullTranslations)
    return tr


def N_(message: str) -> str:
    """Mark a constant for translation; :func:`_` translates it where it is shown."""
    return message


def _(message: str) -> str:
    """``message`` in the current language."""
    return _tr().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for the count ``n`` in the current language."""
    return _tr().ngettext(singular, plural, n)


def current_language() -> str:
    """The language in use now (a key of :data:`LANGUAGES`)."""
    return str(_state["lang"])


def use_language(lang: str) -> None:
    """Speak ``lang`` from now on; an unknown language is a :class:`ValueError`."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use one of {', '.join(LANGUAGES)}")
    if lang == "en":
        _state["tr"] = gettext.NullTranslations()
    else:
        # A missing compiled catalogue is a broken install: say so rather than fall back.
        _state["tr"] = gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang])
    _state["lang"] = lang


def default_name() -> str:
    """The person's name at the table when none is given ("You" in English)."""
    return _("You")


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

_RANK_WORDS = (
    N_("deuce"), N_("three"), N_("four"), N_("five"), N_("six"), N_("seven"), N_("eight"),
    N_("nine"), N_("ten"), N_("jack"), N_("queen"), N_("king"), N_("ace"),
)  # fmt: skip
_RANK_PLURALS = (
    N_("deuces"), N_("threes"), N_("fours"), N_("fives"), N_("sixes"), N_("sevens"),
    N_("eights"), N_("nines"), N_("tens"), N_("jacks"), N_("queens"), N_("kings"), N_("aces"),
)  # fmt: skip


def _word(rank: int) -> str:
    return _(_RANK_WORDS[rank])


def rank_word(rank: int) -> str:
    """A rank's name in the current language (0 is the deuce, 12 the ace)."""
    return _word(rank)


def _plural(rank: int) -> str:
    # The form after "pair of" (a genitive plural in the Slavic and Baltic languages).
    return _(_RANK_PLURALS[rank])


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def hand_name(value: int) -> str:
    """The name of a line value in the current language (English: ``describe``)."""
    if current_language() == "en":
        return describe(value)
    cat = category(value)
    ks = key_ranks(value)
    if cat == STRAIGHT_FLUSH and ks[0] == 12:
        return _("Royal flush")
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        if (value >> 12) & 15 == 1:  # the second-highest wheel
            if cat == STRAIGHT_FLUSH:
                return _("Straight flush, five high (wheel)")
            return _("Straight, five high (wheel)")
        if cat == STRAIGHT_FLUSH:
            return _capital(_("Straight flush, {rank} high").format(rank=_word(ks[0])))
        return _capital(_("Straight, {rank} high").format(rank=_word(ks[0])))
    if cat == FOUR_OF_A_KIND:
        return _capital(_("Four {ranks}").format(ranks=_plural(ks[0])))
    if cat == FULL_HOUSE:
        return _capital(
            _("Full house, {ranks} full of {ranks2}").format(
                ranks=_plural(ks[0]), ranks2=_plural(ks[1])
            )
        )
    if cat == FLUSH:
        return _capital(_("Flush, {rank} high").format(rank=_word(ks[0])))
    if cat == THREE_OF_A_KIND:
        return _capital(_("Three {ranks}").format(ranks=_plural(ks[0])))
    if cat == TWO_PAIR:
        return _capital(
            _("Two pair, {ranks} and {ranks2}").format(ranks=_plural(ks[0]), ranks2=_plural(ks[1]))
        )
    kick = ", ".join(RANKS[r] for r in ks[1:])
    if cat == ONE_PAIR:
        if len(ks) == 2:
            return _capital(
                _("Pair of {ranks}, {rank} kicker").format(ranks=_plural(ks[0]), rank=_word(ks[1]))
            )
        return _capital(
            _("Pair of {ranks}, kickers {kickers}").format(ranks=_plural(ks[0]), kickers=kick)
        )
    if kick:
        return _capital(_("{rank} high, then {kickers}").format(rank=_word(ks[0]), kickers=kick))
    return _capital(_("{rank} high").format(rank=_word(ks[0])))


def evaluate_text(text: str) -> int:
    """The value of a line typed as text (``"Qh Qd 7c"``): for examples and tests."""
    cards = parse_cards(text)
    return evaluate3(*cards) if len(cards) == 3 else evaluate(cards)
