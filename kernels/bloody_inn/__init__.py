"""The Bloody Inn kernel: state layout, rules, strategies, batch ``play`` entry point."""
