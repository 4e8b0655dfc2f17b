"""The built-in balance questions; importing a module registers its metrics."""
