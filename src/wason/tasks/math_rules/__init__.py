"""Math sequences (the guess-the-rule math game): rules next = f(current, index), judged by code."""
