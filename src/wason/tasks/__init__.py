"""Task families: rules or templates, generators, games, protocols and scoring, one package each."""
