"""The execution engine: run untrusted programs isolated, check and time them. No Django."""
