//! metrics (filled by its issue).
