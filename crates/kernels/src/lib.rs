//! # kernels: kernel functions, Gram matrices and the kernel cache
//!
//! This crate will hold the `Kernel` trait and the kernels (linear, polynomial, RBF, sigmoid,
//! matrix-dot, Laplacian, χ², precomputed), kernel algebra (scaling, sums, products,
//! composition), rayon-parallel Gram matrices through faer's GEMM with a memory guard, the LRU
//! kernel-column cache SMO reads through, and Nyström / random Fourier features. It is filled
//! by the kernels issue; nothing is implemented yet.
