"""Cross-file summaries: facts that look across files, ranks, runs and nodes at once, in the one
declared order of engine/pipeline.py."""
