"""The articles' five languages: one set of JSON catalogues, read by the terminal, the
browser and the study desk, complete and consistent (``scripts/i18n --check``); every key
the code asks for is in it; Python picks the same plural forms as the browser; nothing
reads gettext catalogues any more; the words built from codes say exactly what the scorer
says (in English); and a person gets the terminal game in Russian, grammatical, from
``--lang`` or from the environment.
"""

from __future__ import annotations

import io
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from chinese_poker.cards import Board, parse_board
from chinese_poker.evaluate import describe, evaluate, evaluate3
from chinese_poker.language import LANGUAGES, plural_category, text_in
from chinese_poker.rules import rules_for
from chinese_poker.scoring import Hand, settle
from chinese_poker.scoring.notes import item_sentence
from chinese_poker.terminal import i18n, render
from chinese_poker.terminal.game import Game, GameConfig

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src/chinese_poker/server/static"
LANGS = ("en", "bg", "hr", "ru", "lv")
NODE = shutil.which("node")
HOLE = re.compile(r"\{(\w+)\}")


def _holes(text: str) -> set[str]:
    return set(HOLE.findall(text))


@pytest.fixture(autouse=True)
def _english_after() -> Any:
    yield
    i18n.use_language("en")


# --------------------------------------------------------------------------- browser


def _catalogue(lang: str) -> dict[str, Any]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def _families() -> tuple[str, ...]:
    # Keys the page builds from a value (`game.${preset}`): a language may hold members
    # of such a family that the English catalogue leaves to the server's English words.
    code = "\n".join(p.read_text() for p in STATIC.rglob("*.js"))
    return tuple(sorted({m + "." for m in re.findall(r"`([\w-]+(?:\.[\w-]+)*)\.\$\{", code)}))


def test_every_browser_catalogue_has_every_key_with_the_same_placeholders() -> None:
    en = _catalogue("en")
    families = _families()
    for lang in LANGS:
        cat = _catalogue(lang)
        assert set(en) <= set(cat), (lang, set(en) - set(cat))
        extra = {k for k in set(cat) - set(en) if not k.startswith(families)}
        assert not extra, (lang, extra)
        for key, text in en.items():
            want = _holes(text["other"] if isinstance(text, dict) else text)
            got = cat[key]
            other = got["other"] if isinstance(got, dict) else got
            assert _holes(other) == want, (lang, key)


# --------------------------------------------------------------------------- terminal


def test_every_catalogue_is_complete_with_its_placeholders_and_plural_forms() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts/i18n"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


# A key written out in the Python sources: t("key"), text_in(lang, "key"), or a constant
# of one of the catalogue's families (a table of keys the code translates later).
_PY_KEY = re.compile(
    r"""(?:\bt\(\s*|text_in\([^,()]+,\s*|words\(\s*)"([\w.]+)"|"((?:term|line|note|item|natural|hand|rank|ranks|review)\.[\w.]+)"[,)\]}:]"""
)


def test_every_key_the_python_code_asks_for_is_in_the_catalogue() -> None:
    en = _catalogue("en")
    sources = sorted((ROOT / "src/chinese_poker").rglob("*.py"))
    asked = {
        key
        for path in sources
        for match in _PY_KEY.finditer(path.read_text(encoding="utf-8"))
        for key in match.groups()
        if key
    }
    assert len(asked) > 180
    assert not sorted(asked - set(en))


def test_nothing_reads_gettext_catalogues_any_more() -> None:
    assert not (ROOT / "src/chinese_poker/locale").exists()
    assert not list((ROOT / "src").rglob("*.po")) and not list((ROOT / "src").rglob("*.mo"))
    for path in (ROOT / "src/chinese_poker").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import gettext" not in text and "babel" not in text, path
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "babel" not in pyproject and "locale/" not in pyproject


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_python_picks_the_browsers_plural_forms() -> None:
    counts = [*range(0, 232), 1001, 1011, 1021, 1111]
    script = (
        f"const counts = {json.dumps(counts)};"
        f"const out = {{}}; for (const l of {json.dumps(list(LANGUAGES))}) "
        "out[l] = counts.map((n) => new Intl.PluralRules(l).select(n));"
        "console.log(JSON.stringify(out));"
    )
    done = subprocess.run([NODE, "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    browser = json.loads(done.stdout)
    for lang in LANGUAGES:
        assert [plural_category(lang, n) for n in counts] == browser[lang], lang


def test_a_count_picks_its_plural_form_and_fills_its_placeholders() -> None:
    key = "term.you_quit_after_n_hands"
    assert text_in("ru", key, n=1) == "Вы вышли после 1 законченной руки"
    assert text_in("ru", key, n=3) != text_in("ru", key, n=5)
    assert text_in("en", key, n=1) == "You quit after 1 finished hand"
    assert text_in("lv", "no.such.key") == "no.such.key"


HANDS = [
    "Ah Kh Qh Jh Th", "9h 8h 7h 6h 5h", "5h 4h 3h 2h Ah", "Kh Kd Ks Kc 2h", "Qh Qd Qs 2c 2h",
    "Ah 9h 7h 4h 2h", "Ah Kd Qs Jc Th", "5h 4d 3s 2c Ah", "7h 7d 7s Kc 2h", "7h 7d Ts Tc 2h",
    "Jh Jd 4s 3c 2h", "Ah Jd 9s 4c 2h", "Qh Qd 4s", "Ah Kd 4s", "6h 6d 6s",
]  # fmt: skip


def _value(text: str) -> int:
    return i18n.evaluate_text(text)


@pytest.mark.parametrize("lang", LANGS)
def test_hand_names_in_every_language(lang: str) -> None:
    i18n.use_language(lang)
    names = [i18n.hand_name(_value(h)) for h in HANDS]
    assert len(set(names)) == len(names), names
    for name in names:
        assert name and name[0].isupper() and "{" not in name, name
    if lang == "en":
        assert names == [describe(_value(h)) for h in HANDS]
    else:
        english = {describe(_value(h)).split(",")[0] for h in HANDS} - {"A-2-3-4-5"}
        assert not any(name.split(",")[0] in english for name in names), names


def test_some_names_as_players_say_them() -> None:
    i18n.use_language("ru")
    assert i18n.hand_name(_value("Kh Kd Ks Kc 2h")) == "Каре королей"
    assert i18n.hand_name(_value("Qh Qd 4s")) == "Пара дам, кикер четвёрка"
    i18n.use_language("bg")
    assert i18n.hand_name(_value("7h 7d Ts Tc 2h")) == "Два чифта, десетки и седмици"
    i18n.use_language("hr")
    assert i18n.hand_name(_value("Ah 9h 7h 4h 2h")) == "Boja, najviša as"
    i18n.use_language("lv")
    assert i18n.hand_name(_value("Jh Jd 4s 3c 2h")) == "Kalpu pāris, kikeri 4, 3, 2"


def test_the_language_from_the_environment_as_gettext_reads_it() -> None:
    assert i18n.language_from_env({}) == "en"
    assert i18n.language_from_env({"LANG": "bg_BG.UTF-8"}) == "bg"
    assert i18n.language_from_env({"LANGUAGE": "de:lv", "LANG": "ru_RU.UTF-8"}) == "lv"
    assert i18n.language_from_env({"LANGUAGE": "de", "LANG": "ru_RU.UTF-8"}) == "ru"
    assert i18n.language_from_env({"LC_ALL": "C", "LANG": "ru_RU.UTF-8"}) == "en"
    assert i18n.language_from_env({"LC_MESSAGES": "hr_HR@euro"}) == "hr"
    with pytest.raises(ValueError, match="unknown language 'de': use one of en, bg, hr, ru, lv"):
        i18n.use_language("de")


def _play(lang: str, lines: list[str]) -> str:
    feed = iter(lines)
    console = Console(file=io.StringIO(), record=True, width=110)
    game = Game(
        GameConfig(rules_for("pineapple"), title="pineapple", seed=3, language=lang),
        console=console,
        input_fn=lambda prompt: console.print(prompt, end="") or next(feed),
    )
    game.run()
    return console.export_text()


def test_the_terminal_game_in_russian_and_a_bad_line_in_the_players_words() -> None:
    out = _play("ru", ["tmbbb", "", "zz", "q"])
    assert "Ваши карты, улица 1: выложите 5" in out
    # The verbs agree with «Вы» (no "Вы выложил"), the lines are in the accusative.
    assert "You: выложено 9s наверх, 7h в середину, 8s 2s Qs вниз" in out
    assert "выложил" not in out
    assert "неизвестная команда 'zz'" in out
    assert "Вы вышли после 0 законченных рук" in out
    assert "Итоговый счёт" in out
    for english in ("Your cards", "unknown command", "You quit", "Final ledger", "street 2 "):
        assert english not in out
    # The same game in English is unchanged.
    assert "Your cards, street 1: place 5" in _play("en", ["q"])


@pytest.mark.slow
def test_play_lang_option_and_its_error(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "chinese_poker.cli", "play", "--seed", "3", "--delay", "0"]
    done = subprocess.run(
        [*run, "--lang", "lv"], input="q\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "Galīgais rēķins" in done.stdout, done.stdout[-800:]
    env = {"PATH": "/usr/bin:/bin", "LANG": "hr_HR.UTF-8", "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(run, input="q\n", capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "Konačni obračun" in done.stdout, done.stdout[-800:]
    done = subprocess.run(
        [*run, "--lang", "de"], input="q\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "unknown language 'de'" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# --------------------------------------------------------------------------- from codes


def _random_settlements(count: int) -> list[dict[str, Any]]:
    """Settlements of random boards (fouls, scoops, royalties, naturals, surrenders) under
    rulesets whose breakdowns use every kind of item and note."""
    rng = random.Random(13)
    rulesets = [
        rules_for("ofc"),
        rules_for("pineapple", finnish_deuce=True),
        rules_for("ofc", royalty_award="winner_only"),
        rules_for("ofc", royalty_award="best_at_table"),
        rules_for("ofc", royalty_award="cancel"),
        rules_for("classic"),
        rules_for("classic-1-6"),
        rules_for("classic", surrender_allowed=True),
    ]
    out = []
    for i in range(count):
        rules = rulesets[i % len(rulesets)]
        deck = list(range(52))
        rng.shuffle(deck)
        hands = []
        for p, name in enumerate(("Ann", "Bob", "Cy")[: 2 + i % 2]):
            cards = deck[13 * p : 13 * p + 13]
            if rng.random() < 0.6:  # mostly valid boards: strongest five at the bottom
                cards.sort(key=lambda c: c >> 2, reverse=True)
                cards = cards[8:] + cards[3:8] + cards[:3]
            board = Board(tuple(cards[:3]), tuple(cards[3:8]), tuple(cards[8:]))
            surrender = bool(rules.surrender_allowed) and rng.random() < 0.3
            hands.append(Hand(name=name, board=board, surrender=surrender))
        out.append(settle(rules, hands).to_dict())
    return out


def test_the_terminal_builds_the_scorers_words_from_the_codes() -> None:
    # The English sentence built from the item's data, with the terminal's hand names,
    # is what the scorer wrote; in Russian it is whole (no placeholder, no English).
    data = _random_settlements(160)
    kinds = {(it["kind"], it.get("note")) for s in data for p in s["pairs"] for it in p["items"]}
    assert {"line", "scoop", "foul", "royalty", "overall"} <= {k for k, _ in kinds}
    for s in data:
        hand = render._hand_of(s)
        for pair in s["pairs"]:
            for item in pair["items"]:
                got = item_sentence(pair["a"], pair["b"], item, hand=hand)
                assert got == item["text"], (item, got)
    i18n.use_language("ru")
    for s in data:
        hand = render._hand_of(s)
        for pair in s["pairs"]:
            for item in pair["items"]:
                said = render.item_text(pair, item, hand)
                assert said and "{" not in said and " won " not in said, (item, said)
        for seat in s["players"]:
            if seat.get("foul_reason") and " beats " in seat["foul_reason"]:
                assert text_in("ru", "foul.beats").split()[2] in render._foul_reason(seat)


def test_a_settlement_carries_its_foul_reason_as_data() -> None:
    # The sentence is for people; the fields are what a client words in its own language.
    # Oracle: the line names as the sentence itself gives them.
    fouls = [
        seat for s in _random_settlements(160) for seat in s["players"] if seat.get("foul_reason")
    ]
    assert len(fouls) > 20
    for seat in fouls:
        foul, text = seat["foul"], seat["foul_reason"]
        assert foul["kind"] == "beats", seat
        assert text.startswith(foul["line"] + " ") and f" beats {foul['below']} " in text
    low = settle(rules_for("classic-low-middle", low_middle_qualifier="ten_high_no_pair"), [
        Hand(name="Ann", board=parse_board("2c 3d 4h | Ks Kd 9c 8h 7s | Ac Ad Ah As 5c")),
        Hand(name="Bob", board=parse_board("Qc Jd 9h | 7c 5d 4c 3h 2s | Tc Td Th 8c 8d")),
    ]).to_dict()  # fmt: skip
    ann = next(p for p in low["players"] if p["name"] == "Ann")
    assert ann["foul"] == {"kind": "low_middle", "line": "middle", "below": None, "ceiling": "T"}
    assert "low middle must be T-high" in ann["foul_reason"]
    i18n.use_language("ru")
    try:
        # The terminal says what the browser's catalogue says, with the ceiling's name.
        ru = json.loads((STATIC / "i18n/ru.json").read_text(encoding="utf-8"))
        assert render._foul_reason(ann) == ru["foul.low_middle"].format(rank=i18n.rank_word(8))
        beats = fouls[0]
        assert " beats " not in render._foul_reason(beats)
    finally:
        i18n.use_language("en")


def test_a_foul_reason_keeps_its_fields_through_a_worker_process() -> None:
    import pickle

    from chinese_poker.scoring import FoulReason, foul_reason

    reason = foul_reason(
        rules_for("ofc"), parse_board("Qh Qd 7c | Qs Qc 6d 5h 4s | Ah Kh 9h 8h 2h")
    )
    assert isinstance(reason, FoulReason)
    back = pickle.loads(pickle.dumps(reason))
    assert back == reason and back.as_dict() == reason.as_dict()
    assert back.as_dict() == {"kind": "beats", "line": "top", "below": "middle", "ceiling": None}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_browser_builds_the_scorers_words_from_the_codes(tmp_path: Path) -> None:
    # words.js itemText, with the English catalogue loaded as another language, must
    # rebuild the scorer's own text of every item from its kind and note.
    data = _random_settlements(120)
    src = tmp_path / "settlements.json"
    src.write_text(json.dumps(data))
    script = tmp_path / "items.mjs"
    static = (STATIC / "js").as_uri()
    script.write_text(
        f"""
import {{ readFileSync }} from "node:fs";
import {{ useCatalogues }} from "{static}/i18n.js";
import {{ itemText }} from "{static}/words.js";
const en = JSON.parse(readFileSync({json.dumps(str(STATIC / "i18n/en.json"))}, "utf8"));
useCatalogues({{ ru: en, en }}, "ru");
const data = JSON.parse(readFileSync({json.dumps(str(src))}, "utf8"));
const out = data.map((s) => s.pairs.map((p) => p.items.map((it) => itemText(p, it))));
console.log(JSON.stringify(out));
"""
    )
    done = subprocess.run([NODE, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    texts = json.loads(done.stdout)
    for s, pairs in zip(data, texts, strict=True):
        for pair, items in zip(s["pairs"], pairs, strict=True):
            for item, got in zip(pair["items"], items, strict=True):
                assert got == item["text"], (item, got)


def test_evaluate_text_is_the_evaluator() -> None:
    assert i18n.evaluate_text("Qh Qd 7c") == evaluate3(*_cards("Qh Qd 7c"))
    assert i18n.evaluate_text("Ah Kh Qh Jh Th") == evaluate(_cards("Ah Kh Qh Jh Th"))


def _cards(text: str) -> list[int]:
    from chinese_poker.cards import parse_cards

    return list(parse_cards(text))


def test_every_server_error_code_has_words_in_every_language() -> None:
    """Each ``ErrorCode`` the server can send has its sentence in every catalogue and in
    the page's ``ERROR_WORDS`` (four of the sixteen read "The server refused that.")."""
    from chinese_poker.server.messages import ErrorCode

    words_js = (STATIC / "js" / "words.js").read_text()
    block = words_js[words_js.index("export const ERROR_WORDS") :]
    block = block[: block.index("};")]
    for code in ErrorCode:
        assert f'get {code.value}() {{ return t("error.{code.value}"); }}' in block, code
        for lang in LANGS:
            text = _catalogue(lang).get(f"error.{code.value}")
            assert isinstance(text, str) and text.strip(), (lang, code)


def test_every_error_code_a_page_can_get_is_an_error_code() -> None:
    """The codes come from the server's code, not from a list here: every ``error`` a
    page's socket can get is built with an ``ErrorCode`` (``messages.error_text``), and
    the one written out as a literal (the socket's last resort) is one of them too."""
    from chinese_poker.server.messages import ErrorCode

    server = ROOT / "src/chinese_poker/server"
    literal = re.compile(r'"type": "error".*?"code": "(\w+)"')
    found = {
        m.group(1)
        for path in server.glob("*.py")
        if path.name != "bot_socket.py"  # the bot protocol's own errors, for programs
        for m in literal.finditer(path.read_text())
    }
    assert found, "the socket's literal error was not found"
    assert found <= {code.value for code in ErrorCode}, found


def test_the_lobby_names_options_and_rules_in_players_words() -> None:
    """No option key in brackets and no RULES section number on a page (issue 40): the
    lobby lists an option by its name alone, so every name is distinct in every language."""
    from chinese_poker.rules.words import option_catalogue

    english = {o["key"]: o["label"] for o in option_catalogue()}
    for lang in LANGS:
        cat = _catalogue(lang)
        assert not [k for k, v in cat.items() if "RULES §" in str(v)], lang
        names = [cat.get(f"option.{key}", label) for key, label in english.items()]
        assert len(set(names)) == len(names), (lang, sorted(n for n in names if names.count(n) > 1))
    assert "RULES §" not in json.dumps(option_catalogue(), ensure_ascii=False)
    words_js = (STATIC / "js" / "words.js").read_text()
    assert "(${key})" not in words_js
