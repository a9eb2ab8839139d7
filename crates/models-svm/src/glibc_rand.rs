//! The C library's `rand()` as glibc implements it, so that LIBSVM's random choices can be
//! replayed exactly.
//!
//! LIBSVM draws its cross-validation folds with `rand()` and never calls `srand`, so its tools
//! (and its Python binding, in a fresh process) see glibc's sequence from seed 1. glibc's
//! `rand()` is `random()` with its default state: the "TYPE_3" additive feedback generator of
//! degree 31 and separation 3, `r_i = r_{i−31} + r_{i−3} (mod 2³²)`, whose output is `r_i >> 1`.
//! The 31 state words are seeded by the Lehmer generator `16807 · r (mod 2³¹ − 1)` and the first
//! 310 outputs are discarded.

/// glibc's `rand()` / `random()` generator (TYPE_3 state), seeded as `srand(seed)`.
#[derive(Clone, Debug)]
pub(crate) struct GlibcRand {
    state: [u32; DEGREE],
    front: usize,
    rear: usize,
}

const DEGREE: usize = 31;
const SEPARATION: usize = 3;

impl GlibcRand {
    /// The generator after `srand(seed)`; `srand(0)` is `srand(1)`, the sequence a program
    /// that never calls `srand` sees.
    pub(crate) fn new(seed: u32) -> Self {
        let seed = if seed == 0 { 1 } else { seed };
        let mut state = [0u32; DEGREE];
        state[0] = seed;
        // glibc keeps the seed words in a signed 32-bit integer and computes the Lehmer step
        // with Schrage's method, which stays within 31 bits; the wrap to i32 is glibc's own.
        let mut word = seed as i32;
        for slot in state.iter_mut().skip(1) {
            let (hi, lo) = (i64::from(word) / 127_773, i64::from(word) % 127_773);
            let mut next = 16_807 * lo - 2_836 * hi;
            if next < 0 {
                next += 2_147_483_647;
            }
            word = next as i32;
            *slot = word as u32;
        }
        let mut g = GlibcRand {
            state,
            front: SEPARATION,
            rear: 0,
        };
        for _ in 0..10 * DEGREE {
            g.next_rand();
        }
        g
    }

    /// The next value of `rand()`, in `0..=2³¹ − 1`.
    pub(crate) fn next_rand(&mut self) -> u32 {
        let value = self.state[self.front].wrapping_add(self.state[self.rear]);
        self.state[self.front] = value;
        self.front = (self.front + 1) % DEGREE;
        self.rear = (self.rear + 1) % DEGREE;
        value >> 1
    }

    /// LIBSVM's shuffle of `0..l`: for each position `i`, swap with `i + rand() % (l − i)`.
    pub(crate) fn libsvm_permutation(&mut self, l: usize) -> Vec<usize> {
        let mut perm: Vec<usize> = (0..l).collect();
        for i in 0..l {
            let j = i + self.next_rand() as usize % (l - i);
            perm.swap(i, j);
        }
        perm
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unseeded_sequence_is_glibc_s() {
        // The first values of `rand()` in a C program on glibc that never calls srand.
        let mut g = GlibcRand::new(0);
        let first: Vec<u32> = (0..6).map(|_| g.next_rand()).collect();
        assert_eq!(
            first,
            [
                1_804_289_383,
                846_930_886,
                1_681_692_777,
                1_714_636_915,
                1_957_747_793,
                424_238_335
            ]
        );
        let mut one = GlibcRand::new(1);
        assert_eq!(one.next_rand(), 1_804_289_383);
    }

    #[test]
    fn other_seeds_follow_glibc() {
        // `srand(s); rand()` on glibc 2.36 for seeds that exercise the signed seed word.
        assert_eq!(GlibcRand::new(42).next_rand(), 71_876_166);
        assert_eq!(GlibcRand::new(1 << 31).next_rand(), 1_336_741_213);
        assert_eq!(GlibcRand::new(u32::MAX).next_rand(), 254_925_627);
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut g = GlibcRand::new(0);
        let mut p = g.libsvm_permutation(100);
        p.sort_unstable();
        assert_eq!(p, (0..100).collect::<Vec<_>>());
        assert!(g.libsvm_permutation(0).is_empty());
    }
}
