//! models-linear (filled by its issue).
