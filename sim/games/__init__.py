"""One adapter module per game (see ``sim.registry``)."""
