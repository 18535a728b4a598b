"""Application configuration evidence: Kafka client properties."""
