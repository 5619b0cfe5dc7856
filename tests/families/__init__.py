"""Task families that live only in the tests: each subpackage exposes ``FAMILY`` (see test_family_contract)."""
