"""The SDK's version; the same as pyproject.toml's (a test checks)."""

__version__ = "0.1.0.dev0"
