//! kernels (filled by its issue).
