"""Shared types and leaves: evidence and verdict types, text helpers, files, URLs, the untrusted-span envelope, versions. Imports nothing else of spanproof."""
