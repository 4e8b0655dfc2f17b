"""Cluedo restricted play and starting-character power (``sim power``): every restriction
narrows the restricted seat's own choices in the kernel (checked in the event log against
unrestricted seats of the same games), duplicate deals pair the arms, the characters arm
rotates each deal's characters over the seats, and a character given an extra step on every
walk comes out with positive power."""

from collections import defaultdict

import numpy as np
import pytest

from analysis.dataset import open_dataset
from analysis.metrics import run_question
from kernels.cluedo import layout as L
from sim import api
from sim import power as pw
from sim import sweep as sweeps
from sim.errors import ConfigError
from sim.games.cluedo import adapter as C

EV = {name: i for i, name in enumerate(L.EV_NAMES)}


def run(players, seats, games, seed=11, rotate=False, events=True, **rules):
    cfg = {"game": "cluedo", "players": players, "games": games, "seed": seed, "rotate": rotate}
    cfg["seats"] = seats
    cfg["rules"] = rules
    return api.resolve(cfg), C


def play(players, seats, games, **kw):
    res, _ = run(players, seats, games, **kw)
    return C.run_arrays(res, 0, games, events=True, check=True)


def per_seat(ev, kind, pred):
    """Count events of ``kind`` per acting seat for which ``pred(row)`` holds."""
    out = defaultdict(int)
    for row in ev[ev[:, 3] == EV[kind]]:
        if pred(row):
            out[int(row[2])] += 1
    return out


def restricted(action, strategy="prob"):
    return [{"strategy": strategy, "restrict": {"actions": [action]}}] + [{"strategy": strategy}] * 3


# --- each restriction bars the seat's own choice, nobody else's (kernel, not post-filter) --


def test_clue_card_restriction_never_draws_while_others_do():
    """CL-T2: a ROLL with d = 1 is a loupe used for a clue card."""
    g, _, ev = play(4, restricted("clue_cards"), 300)
    assert g["violations"].sum() == 0
    drew = per_seat(ev, "roll", lambda r: r[7] == 1)
    loupes = per_seat(ev, "roll", lambda r: r[6] > 0)
    assert loupes[0] > 50  # the restricted seat rolled loupes ...
    assert drew[0] == 0  # ... and never used one for a clue card
    assert min(drew[s] for s in (1, 2, 3)) > 50


def test_passage_restriction_never_takes_a_passage_while_others_do():
    """CL-T3: a MOVE with d = 1 is a secret passage."""
    g, _, ev = play(4, restricted("passage"), 300)
    assert g["violations"].sum() == 0
    took = per_seat(ev, "move", lambda r: r[7] == 1)
    assert took[0] == 0
    assert min(took[s] for s in (1, 2, 3)) > 20


def test_own_cards_restriction_never_names_an_own_suspect_or_weapon():
    """CL-T5: the named suspect and weapon are never in the suggester's hand."""
    g, _, ev = play(4, restricted("own_cards"), 300)
    assert g["violations"].sum() == 0
    game_of = np.repeat(np.arange(300), g["n_events"])
    hand = defaultdict(int)
    for gi, row in zip(game_of, ev):
        if row[3] == EV["deal"] and 0 <= row[2] < 6:
            hand[(gi, int(row[2]))] |= 1 << int(row[4])
    own = defaultdict(int)
    for gi, row in zip(game_of, ev):
        if row[3] == EV["suggest"]:
            mine = hand[(gi, int(row[2]))]
            own[int(row[2])] += int((mine >> int(row[4])) & 1) + int((mine >> int(row[5])) & 1)
    assert own[0] == 0
    assert min(own[s] for s in (1, 2, 3)) > 20  # unrestricted prob seats do mislead


def test_gamble_restriction_accuses_only_when_right_while_prob_gambles():
    """CL-T6: a seat that accuses only when certain is never wrong; the same prob seats
    unrestricted accuse on a probability and are sometimes wrong (so the test can fail)."""
    seats = [dict(e, params={"risk": 0.5}) for e in restricted("gamble")]  # prob gambles often
    _, s, _ = play(4, seats, 600)
    acc = s["accused"].reshape(600, 4)
    assert (acc[:, 0] == 2).sum() == 0 and (acc[:, 0] == 1).sum() > 50
    assert (acc[:, 1:] == 2).sum() > 50


def test_a_restriction_the_strategy_never_uses_leaves_every_game_identical():
    """Duplicate deals pair the arms: logic never accuses on a probability, so barring the
    gamble changes nothing, game by game (same stream per deal in both arms)."""
    base, _ = run(3, [{"strategy": "logic"}], 300, rotate="duplicate")
    barred, _ = run(3, restricted("gamble", "logic")[:3], 300, rotate="duplicate")
    g0, s0, _ = C.run_arrays(base, 0, 300)
    g1, s1, _ = C.run_arrays(barred, 0, 300)
    assert (g0["turns"] == g1["turns"]).all() and (s0["win"] == s1["win"]).all()


def test_duplicate_deals_share_characters_and_cards_within_a_deal():
    """The games of a deal (one per rotation of the lineup) share the characters, the deal
    and the envelope; the next deal differs."""
    res, _ = run(
        3, [{"strategy": "logic"}, {"strategy": "naive"}, {"strategy": "naive"}], 30, rotate="duplicate"
    )
    g, s, _ = C.run_arrays(res, 0, 30)
    ch = s["character"].reshape(10, 3, 3)  # deal, game in deal, seat
    env = g["solution_room"].reshape(10, 3)
    lineup = s["lineup"].reshape(10, 3, 3)
    assert (ch == ch[:, :1]).all() and (env == env[:, :1]).all()
    assert not (ch[1:] == ch[:1]).all()
    assert (lineup[:, :, 0] == np.array([0, 1, 2])).all()  # entry at seat 0 rotates


def test_permuted_characters_play_every_seat_once_per_deal():
    res, _ = run(4, [{"strategy": "logic"}], 40, rotate="duplicate", characters="permute")
    _, s, _ = C.run_arrays(res, 0, 40)
    ch = s["character"].reshape(10, 4, 4)  # deal, game in deal, seat
    for d in range(10):
        assert set(ch[d, 0]) == set(ch[d, 1]) == set(ch[d, 3])
        for seat in range(4):  # each of the deal's characters at each seat exactly once
            assert sorted(ch[d, :, seat]) == sorted(ch[d, 0])
        assert (ch[d, 1] == np.roll(ch[d, 0], -1)).all()


# --- starting-character power on constructed cases -------------------------------------------


def character_power(tmp_path, extra, games=12_000):
    cfg = tmp_path / "c.toml"
    body = 'game = "cluedo"\nname = "xstep"\nplayers = 2\nseed = 4\n[[seats]]\nstrategy = "logic"\n'
    if extra:
        body += "[rules]\nextra_steps = { plum = 1 }\n"
    cfg.write_text(body)
    points = pw.plan(cfg, actions=False, cards=None, characters=True, games=games)
    assert [a for a, _ in points] == ["baseline", "characters"]
    out = tmp_path / ("o1" if extra else "o0")
    sweeps.run_sweep(pw.as_sweep(points, cfg), out, threads=2)
    t = run_question(open_dataset(out), "power")["character_power"]
    return {(r["kind"], r["target"]): r for r in t.iter_rows(named=True)}


def test_a_character_given_an_extra_step_each_turn_comes_out_positive(tmp_path):
    with_step = character_power(tmp_path, True)
    without = character_power(tmp_path, False)
    plum = with_step[("character", "plum")]
    assert plum["power_lo"] > 0, plum
    # the same deals without the step: the extra step is what moved plum up
    assert plum["power"] - without[("character", "plum")]["power"] > 0.02
    # seat order is measured beside it, in the same games: the seats' shares sum to 1
    seats = [r["share"] for k, r in with_step.items() if k[0] == "seat"]
    assert len(seats) == 2 and abs(sum(seats) - 1.0) < 1e-9


def test_sim_power_on_cluedo_has_every_arm(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('game = "cluedo"\nplayers = 3\n[[seats]]\nstrategy = "prob"\n')
    arms = [a for a, _ in pw.plan(cfg, actions=True, games=30)]
    assert arms == [
        "baseline",
        "action:clue_cards",
        "action:passage",
        "action:own_cards",
        "action:gamble",
        "characters",
    ]


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, key",
    [
        ({"rules": {"characters": "permute"}}, "rules.characters"),
        ({"rotate": "duplicate", "rules": {"extra_steps": {"bob": 1}}}, "rules.extra_steps.bob"),
        ({"rotate": "duplicate", "rules": {"extra_steps": {"plum": 13}}}, "rules.extra_steps.plum"),
        ({"seats": [{"strategy": "logic", "restrict": {"actions": ["fly"]}}]}, "seats.0.restrict.actions"),
    ],
)
def test_bad_power_keys_name_the_key(raw, key):
    with pytest.raises(ConfigError) as e:
        api.resolve({"game": "cluedo", "players": 3, **raw})
    assert key in str(e.value)


def test_unrestricted_configs_keep_their_resolved_form():
    res = api.resolve({"game": "cluedo", "players": 3})
    assert "extra_steps" not in res["rules"] and all("restrict" not in s for s in res["seats"])
