"""The append-only session record (JSONL): writing, resuming, listing."""
