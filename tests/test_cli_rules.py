"""The rules commands: score, stats, discard."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from boardctl.cli import main
from tests.conftest import DATA, REPO


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_score_says_the_count(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "score", "5H", "5C", "7S", "8D", "2D")
    assert status == 0
    assert "fifteen two, fifteen four, fifteen six, and a pair is eight" in out
    assert out.splitlines()[-1] == "total 8"


def test_score_accepts_every_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "score", "5h", "10d", "TC", "J♠", "q♥")
    assert status == 0
    assert out.splitlines()[-1] == "total 16"  # 4 fifteens, a pair of tens, two runs of three


def test_score_json_has_breakdown_and_total(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "score", "--json", "5H", "5C", "5S", "JD", "5D")
    data = json.loads(out)
    assert status == 0
    assert (data["total"], data["fifteens"], data["pairs"], data["nobs"]) == (29, 16, 12, 1)
    assert {"kind": "nobs", "cards": ["JD"], "points": 1} in data["items"]


def test_score_crib_flag(capsys: pytest.CaptureFixture[str]) -> None:
    _, hand, _ = _run(capsys, "score", "--json", "2S", "4S", "6S", "8S", "TH")
    _, crib, _ = _run(capsys, "score", "--json", "--crib", "2S", "4S", "6S", "8S", "TH")
    assert json.loads(hand)["total"] == 4
    assert json.loads(crib)["total"] == 0


def test_score_three_card_hand(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "score", "2H", "4H", "8H", "KH")
    assert status == 0 and out.splitlines()[-1] == "total 4"
    assert out.splitlines()[0] == (
        "4 cards: a 3-card hand (the five-card game) with the starter KH; "
        "a 4-card hand needs its starter as a 5th card"
    )


def test_score_with_five_cards_says_nothing_of_three_card_hands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _run(capsys, "score", "2H", "4H", "8H", "QH", "KH")
    assert out.splitlines()[0] == "hand 2H 4H 8H QH  starter KH"


def test_score_refuses_a_four_card_crib(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "score", "--crib", "2H", "4H", "8H", "KH")
    assert status == 1 and out == ""
    assert "a crib holds 4 cards (every variant): give its 4 cards and the starter" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["1X", "5C", "5S", "JD", "5D"], "'1X' is not a card"),
        (["5H", "5C", "5S", "5H", "5D"], "duplicate card 5H"),
        (["5H", "5C"], "got 2 cards"),
        (["5H", "5C", "5S", "JD", "5D", "6D"], "got 6 cards"),
    ],
)
def test_score_errors_exit_1_on_stderr(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = _run(capsys, "score", *argv)
    assert status == 1
    assert out == ""
    assert err.startswith("boardctl: error: ") and message in err


@pytest.mark.parametrize("crib", [False, True])
def test_stats_hands_prints_the_table(capsys: pytest.CaptureFixture[str], crib: bool) -> None:
    table = json.loads((DATA / "distribution.json").read_text())
    kind = "crib" if crib else "hand"
    status, out, _ = _run(capsys, "stats", "hands", *(["--crib"] if crib else []))
    lines = out.splitlines()
    assert status == 0
    rows = dict(line.split() for line in lines[:-1])
    assert rows == {score: str(count) for score, count in table[kind].items()}
    assert lines[-1] == f"mean {table[kind + '_mean']:.4f}"


def test_stats_three_cards(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "stats", "hands", "--cards", "3")
    lines = out.splitlines()
    counts = [int(line.split()[1]) for line in lines[:-1]]
    assert status == 0
    assert sum(counts) == 22100 * 49
    assert lines[-2] == "20 4"


def test_discard_ranks_fifteen_options(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "discard", "--json", "--pone", "5H", "JH", "6C", "7D", "KS", "2C")
    options = json.loads(out)
    assert status == 0 and len(options) == 15
    assert [o["net"] for o in options] == sorted((o["net"] for o in options), reverse=True)
    status, text, _ = _run(capsys, "discard", "--dealer", "5H", "JH", "6C", "7D", "KS", "2C")
    assert status == 0 and len(text.splitlines()) == 17


def test_discard_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "discard", "5H", "JH")
    assert status == 1 and "got 2" in err


def test_score_runs_as_a_process() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "boardctl", "score", "3H", "4D", "5S", "6C", "JH"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "total 8"
    assert "fifteen two, fifteen four, and a run of four is eight" in result.stdout


def test_score_cold_start_imports_little() -> None:
    code = (
        "import sys; from boardctl.cli import main; main(['score','5H','5C','5S','JD','5D']);"
        "heavy = [m for m in ('boardctl.cribbage.census', 'boardctl.cribbage.discard',"
        " 'boardctl.cribbage.validation', 'sqlite3', 'serial', 'gpiozero') if m in sys.modules];"
        "print(heavy, file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert result.stderr.strip() == "[]"


def test_discard_one_card_with_keep_four(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["discard", "--json", "--dealer", "--keep", "4", "5H", "JH", "6C", "7D", "KS"]
    status, out, _ = _run(capsys, *argv)
    options = json.loads(out)
    assert status == 0 and len(options) == 5
    assert all(len(o["discard"]) == 1 for o in options)


def test_stats_under_czech_rules_is_the_exact_runs_of_two_distribution(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from boardctl.cribbage.census import census
    from tests.conftest import scoring_of

    status, out, _ = _run(capsys, "stats", "hands", "--rules", "czech")
    rows = dict(line.split() for line in out.splitlines())
    expected = census(4, scoring=scoring_of("czech"))
    assert status == 0 and rows.pop("mean") == f"{expected.mean:.4f}"
    assert {int(k): int(v) for k, v in rows.items()} == {s: n for s, n in expected.rows()}
    assert sum(int(v) for v in rows.values()) == 12_994_800 and max(map(int, rows)) == 32


def test_stats_house_rules_replace_the_rule_sets(capsys: pytest.CaptureFixture[str]) -> None:
    _, czech, _ = _run(capsys, "stats", "hands", "--crib", "--rules", "czech")
    _, alone, _ = _run(capsys, "stats", "hands", "--crib", "--house-rules", "crib-four-flush")
    _, plain, _ = _run(capsys, "stats", "hands", "--crib")
    assert czech != alone != plain
    assert "32 " not in alone and "32 240" in czech


def test_score_and_discard_take_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "score", "--rules", "czech", "7H", "7C", "8S", "8D", "7D")
    assert status == 0 and out.splitlines()[-1] == "total 32"
    assert "six runs of two is thirty-two" in out
    _, acc, _ = _run(capsys, "score", "7H", "7C", "8S", "8D", "7D")
    assert acc.splitlines()[-1] == "total 20"
    status, out, _ = _run(
        capsys, "discard", "--json", "--rules", "czech", "3H", "4H", *["9C", "QD", "AS", "2S"]
    )
    assert status == 0 and len(json.loads(out)) == 15


def test_unknown_rule_set_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "stats", "hands", "--rules", "swedish")
    assert status == 1 and "unknown rule set 'swedish'" in err and "czech" in err
    status, _, err = _run(
        capsys, "score", "--house-rules", "runs-of-nine", *["5H", "5C", "5S", "JD", "5D"]
    )
    assert status == 1 and "unknown house rule" in err


def test_rules_lists_every_rule_set_and_house_rule_with_its_seed_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from boardctl.cribbage.rules import HOUSE_RULES, RULE_SETS

    status, out, _ = _run(capsys, "rules")
    assert status == 0
    for rule_set in RULE_SETS.values():
        assert f"  {rule_set.name} " in out
    for rule in HOUSE_RULES.values():
        assert f"  {rule.name} " in out
        for source in rule.sources:
            assert f"{source.title()}:" in " ".join(out.split())
    assert "Czech: “Cribbage” from a Czech card-game page (2 to 6 players), line 28:" in out
    assert "Za posloupnost (run) dvou karet" in out
    assert ".txt" not in out  # the seeds' file names are for the docs (--json keeps them)


def test_every_seed_has_a_title_naming_its_language() -> None:
    from boardctl.cribbage.rules import SEED_TITLES, SEEDS

    assert set(SEED_TITLES) == set(SEEDS)
    languages = {key: title.split(":")[0].split()[0] for key, title in SEED_TITLES.items()}
    assert languages == {
        "000": "Polish",  # "Polish rules in English"
        "001": "Finnish",
        "002": "Polish",
        "003": "English",
        "004": "Czech",
    }
    assert "in English" in SEED_TITLES["000"]


def test_rules_json_and_one_name(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "rules", "--json", "czech")
    data = json.loads(out)
    assert status == 0 and [r["name"] for r in data["rule_sets"]] == ["czech"]
    assert "runs-of-two" in data["rule_sets"][0]["house_rules"]
    first = data["rule_sets"][0]["sources"][0]
    assert first["file"] == "004_4ca21f183942aac8.txt" and first["line"] == 28
    assert first["cite"] == "004_4ca21f183942aac8.txt:28" and first["title"].startswith("Czech:")
    status, _, err = _run(capsys, "rules", "swedish")
    assert status == 1 and "neither a rule set" in err and "go-per-card" in err
    status, out, _ = _run(capsys, "rules", "go-per-card")
    assert status == 0 and "Polish rules in English (a translation of seed 002), line 127" in out
    assert "czech" not in out
