//! models-cluster (filled by its issue).
