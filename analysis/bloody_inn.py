"""Bloody Inn facts the analyses need: the annex kinds behind ``annex_mask`` and the
official deck sizes (rule BI-S2).

The card table is read from the manifest (``config.cards``, the table after what-if edits),
so an edited card is analysed as edited; the defaults below are only a fallback for
datasets written without it.
"""

from __future__ import annotations

# BI-S2: deck size (travellers kept) by length and player count, from the player aid.
OFFICIAL_DECK = {
    "short": {1: 36, 2: 35, 3: 42, 4: 48},
    "long": {1: 44, 2: 45, 3: 54, 4: 64},
}

# Rows of configs/bloody_inn/cards.csv that have an annex, barn excluded, in file order:
# (card id, annex name, rank, colour).  Bit i of annex_mask = row i.
DEFAULT_ANNEXES = (
    ("cultivator", "Vegetable Garden", 0, "red"),
    ("mechanic", "Workshop", 1, "red"),
    ("distiller", "Distillery", 2, "red"),
    ("gardener", "Gardens", 3, "red"),
    ("landscaper", "Park", 3, "red"),
    ("butcher", "Butcher's Shop", 3, "red"),
    ("newsboy", "Kiosk", 0, "blue"),
    ("representative", "Parlor", 1, "blue"),
    ("concierge", "Room Service", 2, "blue"),
    ("brewer", "Brewery", 3, "blue"),
    ("grocer", "Grocery", 3, "blue"),
    ("shopkeeper", "Store", 3, "blue"),
    ("novice", "Altar", 0, "purple"),
    ("monk", "Room", 1, "purple"),
    ("abbot", "Cellar", 2, "purple"),
    ("priest", "Chapel", 3, "purple"),
    ("archbishop", "Crypt", 3, "purple"),
    ("bishop", "Bishopric", 3, "purple"),
    ("baron", "Large Chandelier", 0, "green"),
    ("viscount", "King Size Bed", 1, "green"),
    ("count", "Dining Room", 2, "green"),
    ("duke", "Stables", 3, "green"),
    ("prince", "Greenhouse", 3, "green"),
    ("marquis", "Detached House", 3, "green"),
)


def annex_kinds(config):
    """The annex kinds in ``annex_mask`` bit order.

    Parameters
    ----------
    config : dict
        A resolved Bloody Inn config (``manifest["config"]``).

    Returns
    -------
    list of dict
        ``{"bit", "id", "annex", "rank", "colour"}`` per kind.
    """
    cards = config.get("cards") if isinstance(config, dict) else None
    rows = []
    if cards:
        for card in cards:
            annex = card.get("annex") or ""
            if not annex or card.get("id") == "barn":
                continue
            rows.append((card.get("id"), annex, int(card.get("rank", 0)), card.get("colour", "")))
    if not rows:
        rows = list(DEFAULT_ANNEXES)
    return [
        {"bit": i, "id": cid, "annex": name, "rank": rank, "colour": colour}
        for i, (cid, name, rank, colour) in enumerate(rows)
    ]


def official_deck(length, players, deck_copies=1):
    """Official deck size for a length and player count (BI-S2), or None (also for a deck
    built from several copies of the travellers, which no official setup uses)."""
    table = OFFICIAL_DECK.get(str(length))
    if table is None or players not in table or int(deck_copies or 1) != 1:
        return None
    return table[players]


def default_cards_table():
    """A minimal card table (annex rows only) for synthetic manifests."""
    return [
        {
            "id": cid,
            "name": cid.title(),
            "type": "",
            "colour": colour,
            "affinity": "",
            "rank": rank,
            "pocket": 0,
            "copies": 1,
            "annex": annex,
            "effect": "",
        }
        for cid, annex, rank, colour in DEFAULT_ANNEXES
    ]
