"""Request latency samples: CSV, seed-002 tables, netperf TCP_RR/TCP_CRR (with histograms)."""
