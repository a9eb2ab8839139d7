//! margin
