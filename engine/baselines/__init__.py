"""Baselines: how fast it should be (nccl-tests and benchmark results with their context),
compared with what was measured."""
