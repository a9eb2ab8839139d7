//! models-svm (filled by its issue).
