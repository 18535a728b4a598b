"""Socket statistics: ss -tin snapshots and tcp_info exports; per-prefix summary and BBR candidates."""
