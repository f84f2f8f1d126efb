"""Every fact class, by family (issue 12: a layout that shows the architecture). Parsers in
facts/parsers build these facts; the engine's summaries and live diagnosis build some too. These
modules import only facts.model, facts.ids, the standard library, pydantic and each other.

- ``app``: PyTorch, CUDA runtime errors, training throughput, Ollama, Ray, launched processes
- ``bench``: nccl-tests, gpu-burn, DCGM diag runs, pair bandwidth, baseline comparisons
- ``catalogues``: catalogue entries (XID, NVRM, NCCL WARN, IB, CUDA, GPU products), XID aggregations
- ``dcgm``: DCGM, dcgm-exporter, gpud, NHC
- ``derived``: facts derived from other facts
- ``gpu``: nvidia-smi, NVML, nvtop, nvidia-persistenced, fabric manager
- ``host``: kernel and driver versions, CPU, NUMA, PCIe, disks, IPMI, packages, command lines
- ``kernel``: the kernel log (Xid, SXid, NVRM, PCIe, host faults), kernel modules
- ``live``: live diagnosis from Prometheus series, the monitoring stack's state
- ``nccl``: NCCL's log, topology and channels, cross-rank NCCL summaries
- ``network``: InfiniBand / RoCE / Ethernet ports, counters, fabric, verbs, libfabric, UCX, mlx5
- ``scheduler``: Slurm, Kubernetes, the container toolkit and runtimes
- ``steth``: stethoscope's own records (collection, inventory, patrol, probe), unrecognised error lines
"""
