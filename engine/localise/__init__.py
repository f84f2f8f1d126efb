"""Localisation: the topology graph, pairwise bandwidth, RDMA paths, common causes and the
picture of the topology."""
