//! When work goes parallel: one rule for every crate.
//!
//! Work is counted in *element operations*: one multiply-add, one comparison and move, one
//! histogram update — a nanosecond or two of arithmetic. A call site estimates the work of what
//! it is about to do in these units and asks this module; nothing else decides.
//!
//! The rule: a parallel task must carry at least [`TASK_WORK`] operations, so work below that
//! runs on the calling thread, and a split makes tasks no smaller than that. Starting other
//! kinds of parallel work costs more than handing a task to rayon, and that difference is a
//! documented cost factor ([`Overhead`]), not a second threshold.
//!
//! None of this decides a result: every call site splits work whose parts do not depend on how
//! it is split (independent outputs, or sums over blocks fixed by the data's size), so answers
//! are the same bits whatever the number of threads. Only the speed depends on these numbers.

use faer::Par;

/// Element operations a parallel task must carry to pay for itself: 2¹⁶, about 30–100 µs of
/// arithmetic. Waking a sleeping rayon worker and moving a task to it costs some 10–50 µs on
/// the machines measured (2 cores, shared), so a task of this size loses at most a third of
/// its time to the hand-over, and a smaller one risks losing more than it gains.
pub const TASK_WORK: usize = 1 << 16;

/// Tasks per thread when work is cut into chunks up front: enough for the threads to even out
/// uneven chunks, few enough that scheduling stays cheap.
pub const TASKS_PER_THREAD: usize = 4;

/// How much more a kind of parallel work costs to start than one rayon task: the factor by
/// which its work must exceed [`TASK_WORK`] before it goes parallel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overhead {
    /// A rayon loop over independent items: factor 1.
    Loop,
    /// A faer matrix product: factor 4 (2¹⁸ multiply-adds, a product of 64 rows by 64 × 64).
    /// faer packs both operands and splits the output in blocks before any thread starts; below
    /// this the packing and the hand-over cost as much as the product.
    Product,
    /// A faer decomposition (Cholesky, QR, eigen, SVD): factor 3,072 (about 2·10⁸ flops).
    /// Every panel step synchronises the threads, so parallelism pays off only on large
    /// matrices: QR of 2000 × 200 (1.6·10⁸ flops) took 4.8 ms on one thread and 6–14 ms on two.
    Decomposition,
}

impl Overhead {
    /// The factor on [`TASK_WORK`].
    pub const fn factor(self) -> usize {
        match self {
            Overhead::Loop => 1,
            Overhead::Product => 4,
            Overhead::Decomposition => 3072,
        }
    }

    /// The least work that goes parallel.
    pub const fn threshold(self) -> usize {
        TASK_WORK * self.factor()
    }
}

/// Threads of the current rayon pool (at least 1).
pub fn threads() -> usize {
    rayon::current_num_threads().max(1)
}

/// Whether `work` operations of this kind should be split across the pool's threads: more than
/// one thread and at least the kind's threshold.
pub fn should_split(work: usize, overhead: Overhead) -> bool {
    threads() > 1 && work >= overhead.threshold()
}

/// faer's parallelism for a product or decomposition of about `flops` multiply-adds:
/// every thread of the current rayon pool when worth it, sequential otherwise.
pub fn faer_par(flops: f64, overhead: Overhead) -> Par {
    match threads() {
        n if n > 1 && flops >= overhead.threshold() as f64 => Par::rayon(n),
        _ => Par::Seq,
    }
}

/// The fewest items a rayon task should take when each costs `work_per_item` operations
/// (rayon's `with_min_len`, or a fixed chunk length): at least [`TASK_WORK`] per task.
pub fn min_len(work_per_item: usize) -> usize {
    TASK_WORK.div_ceil(work_per_item.max(1))
}

/// A chunk length for cutting `items` items of `work_per_item` operations each into tasks:
/// [`TASKS_PER_THREAD`] tasks per thread, none below [`min_len`].
pub fn chunk_len(items: usize, work_per_item: usize) -> usize {
    items
        .div_ceil(TASKS_PER_THREAD * threads())
        .max(min_len(work_per_item))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a small pool")
            .install(f)
    }

    #[test]
    fn one_thread_never_splits() {
        in_pool(1, || {
            assert!(!should_split(usize::MAX, Overhead::Loop));
            assert_eq!(faer_par(1e12, Overhead::Product), Par::Seq);
        });
    }

    #[test]
    fn work_splits_at_its_kinds_threshold() {
        in_pool(2, || {
            for kind in [Overhead::Loop, Overhead::Product, Overhead::Decomposition] {
                let t = kind.threshold();
                assert!(!should_split(t - 1, kind), "{kind:?}");
                assert!(should_split(t, kind), "{kind:?}");
                assert_eq!(faer_par(t as f64 - 1.0, kind), Par::Seq, "{kind:?}");
                assert_eq!(faer_par(t as f64, kind), Par::rayon(2), "{kind:?}");
            }
            assert!(Overhead::Loop.threshold() < Overhead::Product.threshold());
            assert!(Overhead::Product.threshold() < Overhead::Decomposition.threshold());
        });
    }

    #[test]
    fn tasks_carry_at_least_the_task_work() {
        for work in [0, 1, 3, 100, TASK_WORK, TASK_WORK + 1, usize::MAX] {
            let len = min_len(work);
            assert!(len >= 1);
            assert!(len.saturating_mul(work.max(1)) >= TASK_WORK, "work {work}");
            // And no more items than needed.
            assert!(
                (len - 1) * work.max(1) < TASK_WORK || len == 1,
                "work {work}"
            );
        }
        in_pool(2, || {
            assert_eq!(chunk_len(80_000, TASK_WORK), 10_000);
            assert_eq!(chunk_len(1_000, 256), 256);
        });
    }
}
