"""Word predicates as hidden rules (the guess-the-rule benchmark's lexical "functions" game), judged by code."""
