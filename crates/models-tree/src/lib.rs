//! models-tree (filled by its issue).
