"""Live: Prometheus as a source (DCGM exporter, node_exporter), watch, calibration, recording
and alert rules, dashboards, the monitoring plan."""
