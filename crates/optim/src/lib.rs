//! optim (filled by its issue).
