//! Criterion benches for margin (kernels and solvers land here with their issues).
