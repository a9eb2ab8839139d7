//! models-neighbors (filled by its issue).
