"""The reward design space ranked at a measured timing noise: the criterion on hand-built
runtimes whose answer is known, noise moving the scores, the stored ranking, the entry point
benchmarks/fidelity.py imports, the command, and the Rewards page marking the winner."""

from __future__ import annotations

import json

import numpy as np
import pytest
from django.core.management import call_command

from rewards import services
from rewards.design_ranking import middle_rise, rank_designs
from rewards.engine import ProblemRuntimes, RewardConfig
from rewards.fidelity import rank_reward_designs
from rewards.models import RewardConfig as StoredConfig
from rewards.models import RewardRanking
from rewards.simulator import better_pairs, concordance
from tests.rewards.test_reward_simulation import spread

EXACT = {"tie_band": 0.0, "tie_ramp": 0.0}  # ranks decided at the edge: answers by hand
TOP30 = RewardConfig("binary-top30", speed_bar=30, **EXACT)
CORRECTNESS_ONLY = RewardConfig("correctness-only", speed_bar=None, **EXACT)
FLAT = RewardConfig("control-bar100", speed_bar=100, **EXACT)
WEIGHTED = RewardConfig("weighted-half", combination="weighted", **EXACT)
UNGATED = RewardConfig(
    "weighted-ungated", combination="weighted", gate_on_correctness=False, **EXACT
)
TOP10 = RewardConfig("binary-top10", speed_bar=10, **EXACT)
ALL = [TOP30, CORRECTNESS_ONLY, FLAT, WEIGHTED, UNGATED, TOP10]


def ladder(
    count: int = 30, references: int = 10, tests: int = 3, factor: float = 1.5
) -> list[ProblemRuntimes]:
    """References `factor` apart in speed: reference i is the i-th fastest on every test,
    and quality 1 - i/9 (10 references) sweeps the range evenly. 1.5x apart, timing noise
    rarely swaps neighbours; 1.15x apart (as close as human solutions often are), it does."""
    rng = np.random.default_rng(7)
    made = []
    for _ in range(count):
        base = rng.uniform(0.01, 0.2, size=tests)
        costs = np.array([base * factor**i for i in range(references)])
        made.append(ProblemRuntimes(costs, np.full(tests, 100), np.full(tests, 10)))
    return made


def by_name(ranking) -> dict:
    return {score.name: score for score in ranking.scores}


# -- the criterion on hand-built runtimes ------------------------------------------------------


def test_the_middle_rise_is_read_between_the_second_and_ninth_decile():
    step_at_70 = [-1.0] * 7 + [1.0] * 3
    assert middle_rise(step_at_70, (-1.0, 1.0)) == 1.0
    only_the_top_decile = [-1.0] * 9 + [1.0]
    assert middle_rise(only_the_top_decile, (-1.0, 1.0)) == 0.0
    # a weighted sum's linear climb from 0.5 to 1.0 on a span of 0..1: 0.5 x 0.7
    linear = [0.5 + 0.5 * (b + 0.5) / 10 for b in range(10)]
    assert middle_rise(linear, (0.0, 1.0)) == pytest.approx(0.35)
    # empty deciles are interpolated over; a falling curve gives no rise
    assert middle_rise([-1.0, None, None, None, None, None, None, None, None, 1.0], (-1, 1)) == (
        pytest.approx(0.7 / 0.9)
    )
    assert middle_rise(list(reversed(step_at_70)), (-1.0, 1.0)) == 0.0


def test_the_concordance_by_hand():
    quality = np.array([[1.0, 2 / 3, 1 / 3, 0.0, np.nan]])  # the last one failed: no quality
    ranked = ~np.isnan(quality)
    rewards = np.array([[1.0, -1.0, 1.0, -1.0, 1.0]])
    # better-worse pairs: (0,1) up, (0,2) tie, (0,3) up, (1,2) down, (1,3) tie, (2,3) up
    assert concordance(rewards, better_pairs(quality, ranked)) == (3 - 1) / (3 + 1)
    assert concordance(np.ones((1, 5)), better_pairs(quality, ranked)) is None


def test_the_collapsed_binary_top30_wins_and_its_score_is_the_product_worked_by_hand():
    ranking = rank_designs(ALL, ladder(), noise_cv=0.0)
    assert ranking.winner == "binary-top30" and ranking.winner_family == "collapsed binary"
    scores = by_name(ranking)
    top30 = scores["binary-top30"]
    # 3 of 10 references fast (percentile 0, 11, 22 <= 30): -1 up to quality 0.67, +1 above
    assert top30.curve == [-1.0] * 7 + [1.0] * 3
    # no pair whose rewards differ is in the wrong order; the step lies inside the middle
    assert top30.monotonicity == 1.0 and top30.middle_rise == 1.0 and top30.gating == 1.0
    assert top30.score == 1.0 and top30.rank == 1
    qualities = np.tile(1 - np.arange(10) / 9, 30)
    rho = np.corrcoef(qualities, np.where(qualities > 0.7, 1.0, -1.0))[0, 1]
    assert top30.spearman == pytest.approx(rho)  # reported, not scored (module notes)
    # the weighted sum also never falls, but spends half its span on correctness alone: its
    # 2nd and 9th deciles hold the references at speed 1/9 and 8/9, 0.5 x 7/9 apart
    weighted = scores["weighted-half"]
    assert weighted.monotonicity == 1.0 and weighted.middle_rise == pytest.approx(0.5 * 7 / 9)
    assert weighted.score == pytest.approx(0.5 * 7 / 9) and weighted.rank == 2
    assert [s.rank for s in ranking.scores] == sorted(s.rank for s in ranking.scores)


def test_a_flat_reward_scores_zero_and_loses():
    ranking = rank_designs(ALL, ladder(), noise_cv=0.05, draws=2)
    scores = by_name(ranking)
    for name in ("control-bar100", "correctness-only"):
        assert scores[name].score == 0.0 and scores[name].spearman is None
        assert scores[name].rank > scores["binary-top30"].rank
    assert scores["control-bar100"].flags == ["flat"]


def test_a_reward_that_pays_wrong_answers_for_speed_loses_to_its_gated_twin():
    ranking = rank_designs(ALL, ladder(), noise_cv=0.05, draws=2)
    scores = by_name(ranking)
    ungated, gated = scores["weighted-ungated"], scores["weighted-half"]
    # every wrong answer but the slowest earns 0.5 x (1 - percentile/100) > 0 for its speed
    assert ungated.wrong_paid_share == pytest.approx(0.9, abs=0.02)
    assert ungated.gating == pytest.approx(1 - ungated.wrong_paid_share)
    assert gated.wrong_paid_share == 0.0 and gated.gating == 1.0
    assert ungated.monotonicity == pytest.approx(gated.monotonicity)  # the same on correct ones
    assert ungated.score < 0.2 * gated.score
    assert ranking.winner != "weighted-ungated" and ungated.rank > scores["binary-top30"].rank
    assert "weighted-ungated" in ranking.why and "wrong answers" in ranking.why


def test_a_bar_that_moves_only_in_the_top_decile_has_no_middle_rise():
    scores = by_name(rank_designs([TOP30, TOP10], ladder(), noise_cv=0.0))
    assert scores["binary-top10"].middle_rise == 0.0 and scores["binary-top10"].score == 0.0
    assert scores["binary-top10"].flags == ["extremes only"]


def test_the_collapsed_binary_ranks_above_correctness_only_at_low_noise():
    ranking = rank_designs([CORRECTNESS_ONLY, TOP30], ladder(), noise_cv=0.02, draws=2)
    scores = by_name(ranking)
    assert scores["binary-top30"].rank == 1 and scores["correctness-only"].rank == 2
    assert scores["binary-top30"].score > 0.5


# -- noise ------------------------------------------------------------------------------------


def test_higher_noise_lowers_the_scores_and_spreads_them_between_draws():
    close = ladder(factor=1.15)
    quiet = by_name(rank_designs(ALL, close, noise_cv=0.0))
    loud = by_name(rank_designs(ALL, close, noise_cv=0.5, draws=3))
    for name in ("binary-top30", "weighted-half"):
        # noise hands the better program of a close pair the lower reward
        assert loud[name].monotonicity < quiet[name].monotonicity - 0.05
        assert loud[name].score < quiet[name].score - 0.05
    # the step smears: good programs sometimes miss the bar, poor ones sometimes make it
    assert loud["binary-top30"].middle_rise < 0.97
    assert quiet["binary-top30"].score_spread == 0.0 and loud["binary-top30"].score_spread > 0
    assert loud["binary-top30"].concordance_noiseless == 1.0


def test_a_little_noise_on_well_separated_references_leaves_the_binary_score_alone():
    """1.5x apart, noise of CV 0.2 never moves a reference across the 30% bar: the collapsed
    binary holds still while the weighted sum's continuous reward already moves."""
    quiet = by_name(rank_designs(ALL, ladder(), noise_cv=0.0))
    noisy = by_name(rank_designs(ALL, ladder(), noise_cv=0.2, draws=2))
    assert noisy["binary-top30"].score == quiet["binary-top30"].score == 1.0
    assert noisy["weighted-half"].spearman < quiet["weighted-half"].spearman


def test_rho_is_not_scored_because_noise_can_raise_it_for_a_strict_bar():
    quiet = by_name(rank_designs([TOP30], ladder(), noise_cv=0.0))["binary-top30"]
    loud = by_name(rank_designs([TOP30], ladder(), noise_cv=0.5, draws=3))["binary-top30"]
    # noise lets a 4th of 10 references over the 30% bar now and then, nearer a half-half
    # split where rho of a two-valued reward peaks: rho rises, the concordance does not
    assert loud.spearman > quiet.spearman
    assert loud.monotonicity < quiet.monotonicity == 1.0


def test_the_ranking_at_one_noise_is_repeatable_and_other_draws_change_it():
    close = ladder(factor=1.15)
    once = rank_designs(ALL, close, noise_cv=0.3, draws=2)
    again = rank_designs(ALL, close, noise_cv=0.3, draws=2)
    assert once.as_dict() == again.as_dict()
    other_seed = rank_designs(ALL, close, noise_cv=0.3, draws=2, seed=5)
    assert by_name(other_seed)["binary-top30"].score != by_name(once)["binary-top30"].score


def test_the_why_text_is_made_from_the_numbers():
    ranking = rank_designs(ALL, ladder(), noise_cv=0.1, draws=2)
    best = ranking.scores[0]
    assert ranking.why.startswith(
        f"At timing noise CV 0.1 (2 noise draws on 30 problems), {best.name}"
    )
    assert f"score {best.score:.2f} = monotonicity {best.monotonicity:.2f}" in ranking.why
    assert "pays no wrong answers" in ranking.why
    runner = ranking.scores[1]
    assert f"The runner-up, {runner.name}" in ranking.why
    json.dumps(ranking.as_dict())  # plain data


def test_ties_keep_name_order_and_the_text_tells_a_twin_from_an_equal():
    steady = RewardConfig("binary-top30-steady", speed_bar=30, timing_repeats=10, **EXACT)
    top50 = RewardConfig("binary-top50", speed_bar=50, **EXACT)
    ranking = rank_designs([top50, steady, TOP30], ladder(), noise_cv=0.0)
    assert [(s.name, s.rank, s.score) for s in ranking.scores] == [
        ("binary-top30", 1, 1.0),
        ("binary-top30-steady", 1, 1.0),
        ("binary-top50", 1, 1.0),
    ]
    winner = ranking.scores[0]
    assert winner.ties_with == ["binary-top30-steady", "binary-top50"]
    assert winner.same_rewards_as == ["binary-top30-steady"]
    assert (
        "binary-top30-steady scores the same: it differs only in fields the simulator does "
        "not model" in ranking.why
    )
    assert "binary-top50 scores the same on these problems (first by name: binary-top30)" in (
        ranking.why
    )


def test_without_a_positive_score_there_is_no_winner_and_the_text_says_why():
    ranking = rank_designs([FLAT, CORRECTNESS_ONLY], ladder(5), noise_cv=0.1, draws=1)
    assert ranking.winner is None and ranking.winner_family is None
    assert ranking.why.startswith("No configuration earns a positive score at timing noise")


def test_bad_ranking_arguments_are_named():
    with pytest.raises(ValueError, match="noise_cv"):
        rank_designs(ALL, ladder(2), noise_cv=-0.1)
    with pytest.raises(ValueError, match="draws"):
        rank_designs(ALL, ladder(2), noise_cv=0.1, draws=0)
    with pytest.raises(ValueError, match="configs: two configurations share a name"):
        rank_designs([TOP30, TOP30], ladder(2), noise_cv=0.1)


# -- stored, the entry point, the command and the page ------------------------------------------


@pytest.fixture
def stored_runtimes(db):
    for index in range(4):
        spread(f"p{index}", references=8 + index)
    services.do_load_configs()


def test_the_entry_point_ranks_the_stored_configurations_and_stores_the_ranking(
    stored_runtimes,
):
    result = rank_reward_designs(0.1, quick=True)
    json.dumps(result)
    assert result["noise_cv"] == 0.1 and result["draws"] == 3 and result["quick"]
    assert result["configs_from"] == "stored"
    assert {s["name"] for s in result["scores"]} == set(
        StoredConfig.objects.values_list("name", flat=True)
    )
    assert result["winner_family"] == "collapsed binary"
    assert [p[0] for p in result["problems_used"]] == ["p0", "p1", "p2", "p3"]
    row = RewardRanking.objects.get()
    assert row.pk == result["id"] and row.winner == result["winner"] and row.why == result["why"]
    assert row.started_by == "fidelity" and row.scores == result["scores"]
    # not stored on request; a problem list narrows it
    narrowed = rank_reward_designs(0.1, problems=["p1", "p2"], quick=True, store=False)
    assert narrowed["id"] is None and RewardRanking.objects.count() == 1
    assert [p[0] for p in narrowed["problems_used"]] == ["p1", "p2"]


@pytest.mark.django_db
def test_the_entry_point_names_a_bad_argument():
    spread("p0")
    with pytest.raises(ValueError, match="a rank jitter in points is not one"):
        rank_reward_designs(41)
    with pytest.raises(ValueError, match="problems: no problem nope"):
        rank_reward_designs(0.1, problems=["nope"])
    spread("p1")
    StoredConfig.objects.all().delete()
    result = rank_reward_designs(0.0, store=False)  # none stored: the built-in set
    assert result["configs_from"] == "built-in" and result["draws"] == 1


@pytest.mark.django_db
def test_without_stored_runtimes_the_ranking_says_to_build_first():
    with pytest.raises(ValueError, match="run a dataset build first"):
        rank_reward_designs(0.1, quick=True)
    assert not RewardRanking.objects.exists()


def test_the_command_prints_the_table_and_the_why(stored_runtimes, capsys):
    call_command("rank_reward_designs", "--noise-cv", "0.2", "--quick")
    out = capsys.readouterr().out
    ranking = RewardRanking.objects.get()
    assert ranking.started_by == "cli" and ranking.noise_cv == 0.2
    assert out.splitlines()[1].split()[:2] == ["1", ranking.winner]
    assert ranking.why in out and f"stored as ranking #{ranking.pk}" in out


def test_the_rewards_page_says_how_to_rank_until_there_is_a_ranking(client, alice, db):
    client.force_login(alice)
    page = client.get("/rewards/").content.decode()
    assert 'id="no-ranking"' in page and "manage.py rank_reward_designs --noise-cv" in page
    assert "data-winner" not in page


def test_the_rewards_page_marks_the_winner_with_the_why_and_the_noise(
    stored_runtimes, client, alice
):
    result = rank_reward_designs(0.15, quick=True)
    client.force_login(alice)
    response = client.get("/rewards/")
    assert response.status_code == 200
    page = response.content.decode()
    winner = StoredConfig.objects.get(name=result["winner"])
    assert page.count('data-winner="1"') == 1
    assert f'id="config-{winner.pk}" data-name="{winner.name}"' in page
    row = page.split(f'id="config-{winner.pk}"', 1)[1].split("</tr>", 1)[0]
    assert 'data-winner="1"' in row and ">winner</span>" in row and "#1 (" in row
    assert 'id="ranking-winner"' in page and "CV 0.15</strong>" in page
    ranked_at = RewardRanking.objects.get().created_at.strftime("%Y-%m-%d %H:%M")
    assert ranked_at in page
    assert 'id="no-ranking"' not in page
    why = page.split('id="ranking-why">', 1)[1].split("</p>", 1)[0]
    assert why.startswith("At timing noise CV 0.15") and result["winner"] in why


def test_a_measured_noise_level_is_shown_to_three_figures(stored_runtimes, client, alice):
    # fidelity.py ranks at the CV it measured: a float with 17 digits, not a figure to print
    rank_reward_designs(0.014853823565794167, quick=True)
    client.force_login(alice)
    page = client.get("/rewards/").content.decode()
    assert "CV 0.0149</strong>" in page and "Rank at noise CV 0.0149 (score)" in page
    assert "At timing noise CV 0.0149 (" in page and "0.01485" not in page
