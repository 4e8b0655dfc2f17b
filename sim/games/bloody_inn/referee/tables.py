"""End-of-game checks of the games and seats tables against the replayed game (RES-1/2)."""

from __future__ import annotations

from .divergence import Objection
from .ending import places, winners


def expected_seat_rows(g):
    """Per seat, the seats-table values the replay gives."""
    s = g.s
    place = places(g)
    win = winners(g)
    rows = []
    for p, seat in enumerate(s.seats):
        mask = 0
        for a in seat.annexes:
            mask |= 1 << g.cfg.annex_bits[s.cards[a].kind]
        row = {
            "score": seat.score,
            "place": place[p],
            "win": (1.0 / len(win)) if p in win else 0.0,
            "cash": seat.cash,
            "cheques": seat.cheques,
            "solo_lost": int(seat.solo_lost),
            "buried": seat.buried,
            "buried_money": seat.buried_money,
            "kills": seat.kills,
            "bribes": seat.bribes,
            "builds": seat.builds,
            "fines": seat.fines,
            "wages": seat.wages,
            "annex_mask": mask,
            "peasants_bribed": seat.peasants_bribed,
            "peasants_killed": seat.peasants_killed,
        }
        for r in range(4):
            row[f"bribed_r{r}"] = seat.bribed_by_rank[r]
            row[f"killed_r{r}"] = seat.killed_by_rank[r]
            row[f"buried_r{r}"] = seat.buried_by_rank[r]
        rows.append(row)
    return rows


def expected_game_row(g):
    win = winners(g)
    return {
        "players": g.cfg.players,
        "rounds": g.s.round,
        "turns": g.turns,
        "winner": win[0] if len(win) == 1 else -1,  # a shared win names no seat
        "n_winners": len(win),
        "winners": sum(1 << p for p in win),
        "truncated": int(g.truncated),
        "deck_size": g.cfg.deck_size,
        "open_rooms": sum(1 for r in g.s.rooms if r.is_open),
        "seasons_played": g.seasons_played,
    }


def check_tables(g):
    """Compare every column the replay can compute; the first difference is the objection."""
    if g.seat_rows is not None:
        want = expected_seat_rows(g)
        if len(g.seat_rows) != len(want):
            raise Objection("RES-1", f"{len(g.seat_rows)} seat rows for {len(want)} players")
        for p, (exp, got) in enumerate(zip(want, g.seat_rows)):
            for col, value in exp.items():
                if col not in got:
                    continue
                logged = got[col]
                same = abs(logged - value) < 1e-6 if col == "win" else logged == value
                if not same:
                    rule = {"score": "BI-G3", "place": "BI-G3", "win": "BI-G3", "solo_lost": "BI-X2"}.get(
                        col, "RES-1"
                    )
                    raise Objection(
                        rule,
                        f"seats table, seat {p}: {col} is {logged}, the replay gives {value}",
                        {col: value},
                        {col: logged},
                    )
    if g.game_row is not None:
        for col, value in expected_game_row(g).items():
            if col in g.game_row and g.game_row[col] != value:
                rule = {
                    "winner": "BI-G3",
                    "n_winners": "BI-G3",
                    "winners": "BI-G3",
                    "truncated": "BI-G4",
                }.get(col, "RES-2")
                raise Objection(
                    rule,
                    f"games table: {col} is {g.game_row[col]}, the replay gives {value}",
                    {col: value},
                    {col: g.game_row[col]},
                )
