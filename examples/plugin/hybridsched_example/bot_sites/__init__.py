"""What this package adds to the built-in ``bot-sites`` family."""
