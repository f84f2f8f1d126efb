"""Catalogues joined by rules: knowledge tables (Xid, CUDA, NCCL results, HCA events, GPU products,
past incidents) turned into facts that rules bind."""
