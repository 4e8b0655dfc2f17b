"""End-of-game checks of the games and seats tables against the replayed game (RES-1/2)."""

from __future__ import annotations

from .divergence import fail


def expected_game_row(g):
    d = g.data
    s, w, r = g.envelope
    return {
        "players": g.n,
        "rounds": g.rounds,
        "turns": g.turn,
        "winner": g.winner,
        "n_winners": 1 if g.winner >= 0 else 0,
        "truncated": int(g.truncated),
        "solution_suspect": d.cards[s],
        "solution_weapon": d.cards[w],
        "solution_room": d.cards[r],
        "clue_cards_drawn": g.clue_drawn,
    }


def expected_seat_rows(g):
    """The winner scores 1, place 1; players still in the game share the next place, those
    who accused wrongly the place after them; with no winner all share place 1."""
    nw = 1 if g.winner >= 0 else 0
    still = sum(1 for s in range(g.n) if g.active[s] and s != g.winner)
    rows = []
    for s in range(g.n):
        e = s
        if len(g.rules.lineup) == 1:
            e = 0
        elif g.rules.rotate:
            e = (s + g.game_id) % g.n
        win = s == g.winner
        rows.append(
            {
                "seat": s,
                "character": g.data.suspects[g.chars[s]],
                "lineup": e,
                "strategy": g.rules.lineup[e],
                "turns_taken": g.turns_taken[s],
                "suggestions": g.suggestions[s],
                "first_room_turn": g.first_room[s],
                "accused": g.accused[s],
                "score": 1 if win else 0,
                "place": 1 if win else (1 + nw if g.active[s] else 1 + nw + still),
                "win": 1.0 if win else 0.0,
            }
        )
    return rows


def check(g):
    if g.game_row is not None:
        want = expected_game_row(g)
        for k, v in want.items():
            if k in g.game_row and g.game_row[k] != v:
                fail("RES-2", f"games table column {k!r} differs from the replay", {k: v}, {k: g.game_row[k]})
    if g.seat_rows is not None:
        if len(g.seat_rows) != g.n:
            fail("RES-1", "one seats row per player", {"rows": g.n}, {"rows": len(g.seat_rows)})
        for want, row in zip(expected_seat_rows(g), g.seat_rows):
            for k, v in want.items():
                if k in row and row[k] != v:
                    fail(
                        "RES-1",
                        f"seat {want['seat']}: seats table column {k!r} differs from the replay",
                        {k: v},
                        {k: row[k]},
                    )
