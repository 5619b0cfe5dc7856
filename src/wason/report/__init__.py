"""Tables and transcripts for the terminal, and the same as JSON for scripts."""
