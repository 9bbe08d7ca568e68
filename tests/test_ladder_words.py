"""The words about ratings say which bots are fixed (issue 42's loose ends, item 4): only
the site's own bots anchor the scale; a bot account is rated like a person."""

from __future__ import annotations

import json

import pytest

from chinese_poker.server.holdings import STATIC_DIR

# "our own bots" and "bot accounts (users' bots)" in each language's words.
OWN_AND_ACCOUNTS = {
    "en": ("our own bots", "bot accounts are rated like people"),
    "bg": ("нашите собствени ботове", "ботовете на потребителите се оценяват като хората"),
    "hr": ("naših vlastitih botova", "botovi korisnika ocjenjuju se kao ljudi"),
    "lv": ("mūsu pašu botu", "lietotāju boti tiek vērtēti tāpat kā cilvēki"),
    "ru": ("наших собственных ботов", "боты пользователей оцениваются как люди"),
}


@pytest.mark.parametrize("lang", sorted(OWN_AND_ACCOUNTS))
@pytest.mark.parametrize("key", ["leaderboard.intro", "profile.about"])
def test_only_our_own_bots_have_fixed_ratings(lang: str, key: str) -> None:
    words = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    own, accounts = OWN_AND_ACCOUNTS[lang]
    assert own in words[key] and accounts in words[key], words[key]
