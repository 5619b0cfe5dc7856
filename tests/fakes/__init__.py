"""Stand-ins for external services, for tests."""
