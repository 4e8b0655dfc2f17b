"""The spec of ``sim balance``: what may change, what must hold, and who plays.

A balance spec (TOML) names

* the game, the player counts and the strategy every seat plays during the search
  (``strategy``), plus the shared run-config keys of every candidate (``[base]``: rules flags,
  card edits that stay fixed);
* the **edit space**: ``[[edits]]`` entries, each a dotted run-config key and its allowed
  values (``values = [...]`` or ``range = [lo, hi]`` with an optional ``step``), optionally for
  one player count only (``players = 3``: the deck size of BI-S2 differs by player count).
  Keys are the run config's own: ``cards.<id>.rank|pocket|copies``, ``cards.<id>.amount`` (the
  whole-number argument of the card's effect, ``term`` picking which one when it has several),
  ``rules.<key>`` for every rule flag or constant the game validates (BI-V2 ``deck_size``...);
* the **objectives**: ``[[objectives]]`` entries, a metric (:data:`METRICS`) at some player
  counts with a ``target = [lo, hi]`` band (``inf`` / ``-inf`` for one-sided ones);
* ``[search]`` (optimiser, seed, batch, budget), ``[racing]`` (games per rung, how many go on)
  and ``[confirm]`` (the strong player, fresh games).

Every value is validated when the spec loads: each edit's extreme values are resolved by the
game's own adapter, so a range the game refuses fails with one line naming the spec file, the
edit and the adapter's own complaint.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import api, registry
from .config import load_toml
from .errors import ConfigError

SPEC_KEYS = (
    "game",
    "name",
    "description",
    "players",
    "strategy",
    "base",
    "edits",
    "objectives",
    "search",
    "racing",
    "confirm",
)
EDIT_KEYS = ("key", "values", "range", "step", "players", "term", "official")
OBJECTIVE_KEYS = ("metric", "players", "target", "weight", "cards", "strong", "weak", "label")
SEARCH_KEYS = ("optimizer", "seed", "batch", "budget_games", "budget_minutes", "change_cost")
RACING_KEYS = ("rungs", "keep", "test")
CONFIRM_KEYS = ("strategy", "games", "candidates", "seed")
OPTIMIZERS = ("tpe", "nsga2", "ngopt", "random")

#: metric -> (unit, what it measures, experiment kind)
METRICS = {
    "first_player_gap": ("pts", "seat 0's win share minus 1/players", "self"),
    "seat_gap_max": ("pts", "the largest |win share - 1/players| over seats", "self"),
    "character_gap_max": ("pts", "the largest |win share - 1/players| over characters (Cluedo)", "self"),
    "mean_rounds": ("rounds", "mean rounds of a game", "self"),
    "solo_mean": ("F", "mean solo score, a lost solo game counting 0 (BI-X2)", "self"),
    "ladder_win": ("%", "the stronger strategy's heads-up win share", "ladder"),
    "annex_power_max": ("pts", "the largest causal power of the listed annexes (restricted play)", "power"),
}
_AMOUNT = re.compile(r"\d+")


@dataclass
class Edit:
    """One dimension of the edit space."""

    key: str
    values: list
    official: object
    players: int | None = None
    term: int = 0
    numeric: bool = False

    @property
    def label(self):
        key = self.key if self.term == 0 else f"{self.key}#{self.term}"  # which amount of the effect
        return key if self.players is None else f"{key}@{self.players}p"

    def applies(self, players):
        return self.players is None or self.players == players


@dataclass
class Objective:
    """One objective: a metric at some player counts, with a target band."""

    metric: str
    players: list
    target: tuple
    weight: float = 1.0
    cards: list = field(default_factory=list)
    strong: str | None = None
    weak: str | None = None

    @property
    def unit(self):
        return METRICS[self.metric][0]

    def label(self, players):
        return f"{self.metric}@{players}p"


@dataclass
class Spec:
    game: str
    name: str
    description: str
    players: list
    strategy: str
    base: dict
    edits: list
    objectives: list
    search: dict
    racing: dict
    confirm: dict
    source: str
    text: str

    def digest(self):
        """A hash of everything that decides the search's candidates and games (not the budget)."""
        body = {
            k: getattr(self, k)
            for k in ("game", "players", "strategy", "base", "objectives", "racing", "confirm")
        }
        body["edits"] = [e.__dict__ for e in self.edits]
        body["objectives"] = [o.__dict__ for o in self.objectives]
        body["search"] = {k: v for k, v in self.search.items() if not k.startswith("budget")}
        text = json.dumps(body, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def official(self):
        """The official rules as a candidate (every edit at its official value)."""
        return {e.label: e.official for e in self.edits}

    def changes(self, cand):
        """Labels of the edits whose value differs from the official one."""
        return [e.label for e in self.edits if cand[e.label] != e.official]

    def changed_cards(self, cand):
        """Card ids touched by a candidate's changes."""
        out = []
        for e in self.edits:
            if cand[e.label] != e.official and e.key.startswith("cards."):
                cid = e.key.split(".")[1]
                if cid not in out:
                    out.append(cid)
        return out

    def describe(self, cand):
        """``"cards.marquis.rank 3 -> 2, rules.deck_size@3p 54 -> 60"`` (or ``"official rules"``)."""
        parts = [
            f"{e.label} {_fmt(e.official)} -> {_fmt(cand[e.label])}"
            for e in self.edits
            if cand[e.label] != e.official
        ]
        return ", ".join(parts) if parts else "official rules"

    def key_of(self, cand):
        """A stable text key of a candidate (the cache key of its games)."""
        return json.dumps([cand[e.label] for e in self.edits], separators=(",", ":"))


def _fmt(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


# --- building run configs of a candidate ------------------------------------------------


def _set(raw, dotted, value):
    parts = dotted.split(".")
    node = raw
    for p in parts[:-1]:
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise ConfigError(dotted, value, "a key inside tables of the run config")
    node[parts[-1]] = value


def _get(table, dotted):
    node = table
    for p in dotted.split("."):
        if not isinstance(node, dict) or p not in node:
            return None
        node = node[p]
    return node


def _card_row(resolved, cid):
    cards = resolved.get("cards")
    if isinstance(cards, list):
        return next((r for r in cards if isinstance(r, dict) and r.get("id") == cid), None)
    if isinstance(cards, dict):
        return cards.get(cid)
    return None


def with_amount(effect, term, amount, where):
    """``effect`` with its ``term``-th whole-number argument replaced by ``amount``."""
    found = list(_AMOUNT.finditer(effect or ""))
    if term >= len(found):
        raise ConfigError(where, effect, f"an effect with at least {term + 1} whole-number argument(s)")
    m = found[term]
    return effect[: m.start()] + str(int(amount)) + effect[m.end() :]


def run_config(spec, cand, players, *, seats=None, rotate=True, games=1, seed=0, base_resolved=None):
    """The run config (a dict for :func:`sim.api.resolve`) of candidate ``cand`` at ``players``."""
    raw = copy.deepcopy(spec.base)
    raw.update(game=spec.game, players=players, games=games, seed=seed, rotate=rotate)
    raw["seats"] = seats if seats is not None else [{"strategy": spec.strategy}]
    for e in spec.edits:
        if not e.applies(players):
            continue
        value = cand[e.label]
        if e.key.startswith("cards.") and e.key.endswith(".amount"):
            cid = e.key.split(".")[1]
            effect = _get(raw, f"cards.{cid}.effect")
            if effect is None:
                row = _card_row(base_resolved or _official_resolved(spec, players), cid)
                effect = row.get("effect") if row else None
            _set(raw, f"cards.{cid}.effect", with_amount(effect, e.term, value, e.label))
        else:
            _set(raw, e.key, value)
    return raw


_OFFICIAL_CACHE = {}


def _official_resolved(spec, players):
    key = (spec.source, spec.game, players, json.dumps(spec.base, sort_keys=True))
    if key not in _OFFICIAL_CACHE:
        raw = copy.deepcopy(spec.base)
        raw.update(game=spec.game, players=players, seats=[{"strategy": spec.strategy}])
        _OFFICIAL_CACHE[key] = api.resolve(raw)
    return _OFFICIAL_CACHE[key]


# --- loading and validation -------------------------------------------------------------


def _err(source, key, value, allowed):
    return ConfigError(key, value, allowed, source)


def _int_list(source, key, value, lo, hi):
    vals = value if isinstance(value, list) else [value]
    if not vals or any(isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi for v in vals):
        raise _err(source, key, value, f"an integer or a list of integers from {lo} to {hi}")
    return sorted(set(vals))


def _number(source, key, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise _err(source, key, value, "a number")
    return float(value)


def load_spec(path):
    """Read and validate a balance spec; return a :class:`Spec`.

    Raises
    ------
    ConfigError
        one line naming the spec file, the key (``edits.2.range``...), the bad value and
        what is allowed.
    """
    path = Path(path)
    data = load_toml(path)
    text = path.read_text(encoding="utf-8")
    return parse_spec(data, str(path), text)


def parse_spec(data, source="<dict>", text=""):
    """Validate a spec given as a dict (see :func:`load_spec`)."""
    src = source
    for k in data:
        if k not in SPEC_KEYS:
            raise _err(src, k, data[k], "one of the keys " + ", ".join(SPEC_KEYS))
    game = data.get("game")
    if game not in registry.game_names():
        raise _err(src, "game", game, " | ".join(map(repr, registry.game_names())))
    adapter = registry.get_adapter(game)
    name = data.get("name", Path(source).stem if source != "<dict>" else "balance")
    if not isinstance(name, str) or not name:
        raise _err(src, "name", name, "a non-empty string")
    desc = data.get("description", "")
    if not isinstance(desc, str):
        raise _err(src, "description", desc, "a string")
    players = _int_list(src, "players", data.get("players", 2), adapter.min_players, adapter.max_players)
    strategy = data.get("strategy")
    known = [s["name"] for s in adapter.strategies()]
    if strategy not in known:
        raise _err(src, "strategy", strategy, " | ".join(known))
    base = data.get("base", {})
    if not isinstance(base, dict):
        raise _err(src, "base", base, "a table of run-config keys (rules, cards)")
    for k in base:
        if k not in ("rules", "cards"):
            raise _err(src, f"base.{k}", base[k], "rules or cards (the other run keys are the search's)")
    spec = Spec(
        game=game,
        name=name,
        description=desc,
        players=players,
        strategy=strategy,
        base=copy.deepcopy(base),
        edits=[],
        objectives=[],
        search={},
        racing={},
        confirm={},
        source=src,
        text=text,
    )
    for n in players:  # the base itself must be a valid run config
        try:
            _official_resolved(spec, n)
        except ConfigError as exc:
            raise _err(src, f"base.{exc.key}", exc.value, exc.allowed) from None
    spec.edits = _parse_edits(spec, data.get("edits"))
    spec.objectives = _parse_objectives(spec, data.get("objectives"), known)
    spec.search = _parse_search(src, data.get("search", {}))
    spec.racing = _parse_racing(src, data.get("racing", {}))
    spec.confirm = _parse_confirm(src, data.get("confirm", {}), known, strategy, spec.search["seed"])
    return spec


def _has_characters(game):
    """Whether the game's restricted play offers a characters arm (so characters exist)."""
    adapter = registry.get_adapter(game)
    resolved = api.resolve({"game": game, "players": adapter.min_players, "games": 1, "seed": 0})
    return bool((adapter.restrictions(resolved) or {}).get("characters"))


def _has_card_table(resolved):
    """Whether the resolved config carries an editable card table."""
    return bool(resolved.get("cards")) if isinstance(resolved, dict) else False


def _official_value(spec, e, players_list, where):
    vals = []
    for n in players_list:
        resolved = _official_resolved(spec, n)
        parts = e.key.split(".")
        if parts[0] == "cards" and len(parts) == 3:
            row = _card_row(resolved, parts[1])
            if row is None and not _has_card_table(resolved):
                row = {}
            if row is None:
                raise ConfigError(where + ".key", e.key, "cards.<id>.<field> of a card of the game")
            if parts[2] == "amount":
                found = _AMOUNT.findall(str(row.get("effect", "")))
                if e.term >= len(found):
                    raise ConfigError(
                        where + ".term",
                        e.term,
                        f"0..{len(found) - 1} (whole-number arguments of {row.get('effect')!r})"
                        if found
                        else f"a card whose effect has a whole-number argument ({row.get('effect')!r} has none)",
                    )
                vals.append(int(found[e.term]))
            else:
                vals.append(row.get(parts[2]))
        else:
            vals.append(_get(resolved, e.key))
    if len(set(json.dumps(v) for v in vals)) > 1:
        raise ConfigError(
            where + ".players",
            "(all)",
            f"one player count: the official {e.key} differs by player count ({vals})",
        )
    return vals[0]


def _parse_edits(spec, entries):
    src = spec.source
    if not isinstance(entries, list) or not entries:
        raise _err(src, "edits", entries, "a non-empty list of [[edits]] tables (key, values or range)")
    out, seen = [], set()
    for i, ent in enumerate(entries):
        where = f"edits.{i}"
        if not isinstance(ent, dict):
            raise _err(src, where, ent, "a table with key and values or range")
        for k in ent:
            if k not in EDIT_KEYS:
                raise _err(src, f"{where}.{k}", ent[k], "one of the keys " + ", ".join(EDIT_KEYS))
        key = ent.get("key")
        if not isinstance(key, str) or not re.fullmatch(
            r"(cards\.[a-z_0-9]+\.[a-z_]+|rules\.[a-z_0-9]+)", key
        ):
            raise _err(src, f"{where}.key", key, "cards.<id>.<field> or rules.<key>")
        p = ent.get("players")
        if p is not None and (isinstance(p, bool) or p not in spec.players):
            raise _err(src, f"{where}.players", p, "one of the spec's player counts " + str(spec.players))
        term = ent.get("term", 0)
        if isinstance(term, bool) or not isinstance(term, int) or not 0 <= term <= 9:
            raise _err(src, f"{where}.term", term, "an integer from 0 to 9")
        if ("values" in ent) == ("range" in ent):
            raise _err(src, where, key, "exactly one of values = [...] or range = [lo, hi]")
        numeric = False
        if "range" in ent:
            r, step = ent["range"], ent.get("step", 1)
            if (
                not isinstance(r, list)
                or len(r) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in r)
                or r[0] >= r[1]
            ):
                raise _err(src, f"{where}.range", r, "[lo, hi], two integers with lo < hi")
            if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= r[1] - r[0]:
                raise _err(src, f"{where}.step", step, f"an integer from 1 to {r[1] - r[0]}")
            values = list(range(r[0], r[1] + 1, step))
            numeric = True
        else:
            values = ent["values"]
            if not isinstance(values, list) or not values:
                raise _err(src, f"{where}.values", values, "a non-empty list of values")
            if len({json.dumps(v) for v in values}) != len(values):
                raise _err(src, f"{where}.values", values, "distinct values")
        e = Edit(key=key, values=list(values), official=None, players=p, term=term, numeric=numeric)
        if e.label in seen:
            raise _err(src, f"{where}.key", e.label, "each key (and player count) once")
        seen.add(e.label)
        plist = [p] if p is not None else spec.players
        try:
            official = ent["official"] if "official" in ent else _official_value(spec, e, plist, where)
        except ConfigError as exc:
            raise exc.with_source(src) from None
        if official is None:
            raise _err(src, f"{where}.key", key, f"a key the resolved {spec.game} config has")
        e.official = official
        if official not in e.values:  # "no change" is always a choice
            e.values = sorted(e.values + [official]) if numeric else e.values + [official]
        _check_values(spec, e, plist, where)
        out.append(e)
    return out


def _check_values(spec, e, plist, where):
    """Resolve the official rules with every value of the edit (the extremes of a range):
    the game's own validation decides what is allowed."""
    probe = [e.values[0], e.values[-1]] if e.numeric else e.values
    for v in probe:
        cand = {x.label: x.official for x in spec.edits}
        cand[e.label] = v
        tmp = copy.copy(spec)
        tmp.edits = [*spec.edits, e]
        for n in plist:
            try:
                api.resolve(run_config(tmp, cand, n))
            except ConfigError as exc:
                what = "range" if e.numeric else "values"
                raise _err(
                    spec.source,
                    f"{where}.{what}",
                    v,
                    f"values the game accepts for {e.key} at {n} players ({exc.key}: {exc.allowed})",
                ) from None


def _parse_objectives(spec, entries, known):
    src = spec.source
    if not isinstance(entries, list) or not entries:
        raise _err(src, "objectives", entries, "a non-empty list of [[objectives]] tables (metric, target)")
    out = []
    for i, ent in enumerate(entries):
        where = f"objectives.{i}"
        if not isinstance(ent, dict):
            raise _err(src, where, ent, "a table with metric and target")
        for k in ent:
            if k not in OBJECTIVE_KEYS:
                raise _err(src, f"{where}.{k}", ent[k], "one of the keys " + ", ".join(OBJECTIVE_KEYS))
        metric = ent.get("metric")
        if metric not in METRICS:
            raise _err(src, f"{where}.metric", metric, " | ".join(METRICS))
        plist = ent.get("players", spec.players)
        plist = _int_list(src, f"{where}.players", plist, 1, 99)
        for n in plist:
            if n not in spec.players:
                raise _err(src, f"{where}.players", n, "player counts of the spec " + str(spec.players))
        t = ent.get("target")
        if not isinstance(t, list) or len(t) != 2:
            raise _err(src, f"{where}.target", t, "[lo, hi] (inf or -inf for a one-sided target)")
        lo, hi = (_number(src, f"{where}.target", v) for v in t)
        if not lo < hi:
            raise _err(src, f"{where}.target", t, "[lo, hi] with lo < hi")
        w = _number(src, f"{where}.weight", ent.get("weight", 1.0))
        if w <= 0:
            raise _err(src, f"{where}.weight", w, "a positive number")
        obj = Objective(metric=metric, players=plist, target=(lo, hi), weight=w)
        kind = METRICS[metric][2]
        if metric == "solo_mean" and plist != [1]:
            raise _err(src, f"{where}.players", plist, "1 (solo games)")
        if metric in ("first_player_gap", "seat_gap_max", "character_gap_max") and 1 in plist:
            raise _err(src, f"{where}.players", plist, "player counts of 2 or more")
        if metric == "character_gap_max" and not _has_characters(spec.game):
            raise _err(src, f"{where}.metric", metric, "a metric of this game (characters are Cluedo's)")
        if kind == "ladder":
            for k in ("strong", "weak"):
                if ent.get(k) not in known:
                    raise _err(src, f"{where}.{k}", ent.get(k), " | ".join(known))
            obj.strong, obj.weak = ent["strong"], ent["weak"]
            if plist != [2] and 2 in spec.players:
                pass
            if any(n < 2 for n in plist):
                raise _err(src, f"{where}.players", plist, "2 or more players (heads-up)")
        if kind == "power":
            adapter = registry.get_adapter(spec.game)
            allowed = adapter.restrictions(_official_resolved(spec, plist[0]))
            if allowed is None:
                raise _err(src, f"{where}.metric", metric, "a metric of a game with restricted play")
            cards = ent.get("cards")
            if not isinstance(cards, list) or not cards or any(c not in allowed["build"] for c in cards):
                raise _err(
                    src, f"{where}.cards", cards, "a list of annex card ids: " + ", ".join(allowed["build"])
                )
            obj.cards = list(dict.fromkeys(cards))
            if any(n < 2 for n in plist):
                raise _err(src, f"{where}.players", plist, "2 or more players")
        out.append(obj)
    return out


def _parse_search(src, t):
    if not isinstance(t, dict):
        raise _err(src, "search", t, "a table")
    for k in t:
        if k not in SEARCH_KEYS:
            raise _err(src, f"search.{k}", t[k], "one of the keys " + ", ".join(SEARCH_KEYS))
    opt = t.get("optimizer", "tpe")
    if opt not in OPTIMIZERS:
        raise _err(src, "search.optimizer", opt, " | ".join(OPTIMIZERS))
    seed = t.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise _err(src, "search.seed", seed, "an integer from 0 to 2**31 - 1")
    batch = t.get("batch", 9)
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= 1000:
        raise _err(src, "search.batch", batch, "an integer from 1 to 1000")
    bg = t.get("budget_games", 2_000_000)
    if isinstance(bg, bool) or not isinstance(bg, int) or bg < 1:
        raise _err(src, "search.budget_games", bg, "a positive integer")
    bm = t.get("budget_minutes")
    if bm is not None and (isinstance(bm, bool) or not isinstance(bm, (int, float)) or bm <= 0):
        raise _err(src, "search.budget_minutes", bm, "a positive number of minutes")
    cc = t.get("change_cost", 0.05)
    if isinstance(cc, bool) or not isinstance(cc, (int, float)) or not 0 <= cc <= 10:
        raise _err(src, "search.change_cost", cc, "a number from 0 to 10")
    return {
        "optimizer": opt,
        "seed": seed,
        "batch": batch,
        "budget_games": bg,
        "budget_minutes": bm,
        "change_cost": float(cc),
    }


def _parse_racing(src, t):
    if not isinstance(t, dict):
        raise _err(src, "racing", t, "a table")
    for k in t:
        if k not in RACING_KEYS:
            raise _err(src, f"racing.{k}", t[k], "one of the keys " + ", ".join(RACING_KEYS))
    rungs = t.get("rungs", [2000, 6000, 18000])
    if (
        not isinstance(rungs, list)
        or not rungs
        or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in rungs)
        or any(b <= a for a, b in zip(rungs, rungs[1:]))
    ):
        raise _err(src, "racing.rungs", rungs, "a list of increasing positive game counts (per player count)")
    keep = t.get("keep", 1 / 3)
    if isinstance(keep, bool) or not isinstance(keep, (int, float)) or not 0 < keep <= 1:
        raise _err(src, "racing.keep", keep, "the share of candidates a rung sends on, 0 < keep <= 1")
    test = t.get("test", True)
    if not isinstance(test, bool):
        raise _err(src, "racing.test", test, "true or false")
    return {"rungs": rungs, "keep": float(keep), "test": test}


def _parse_confirm(src, t, known, strategy, search_seed):
    if not isinstance(t, dict):
        raise _err(src, "confirm", t, "a table")
    for k in t:
        if k not in CONFIRM_KEYS:
            raise _err(src, f"confirm.{k}", t[k], "one of the keys " + ", ".join(CONFIRM_KEYS))
    strat = t.get("strategy", strategy)
    if strat not in known:
        raise _err(src, "confirm.strategy", strat, " | ".join(known))
    games = t.get("games", 100_000)
    if isinstance(games, bool) or not isinstance(games, int) or games < 100:
        raise _err(src, "confirm.games", games, "an integer >= 100 (per player count)")
    cands = t.get("candidates", 6)
    if isinstance(cands, bool) or not isinstance(cands, int) or not 1 <= cands <= 100:
        raise _err(src, "confirm.candidates", cands, "an integer from 1 to 100")
    # fresh deals: a seed the search never plays (the search plays seed search.seed only)
    seed = t.get("seed", search_seed + 1_000_003)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed == search_seed or seed < 0:
        raise _err(
            src, "confirm.seed", seed, f"a non-negative integer other than search.seed ({search_seed})"
        )
    return {"strategy": strat, "games": games, "candidates": cands, "seed": seed}
