"""Live facts: Prometheus series (DCGM exporter, node_exporter) -> the same fact kinds the
parsers emit, plus facts only a time series can give (stalls, stragglers, trends, growth)."""
