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

/// Calls `block(first_row, rows)` over `out`, a row-major buffer of rows of `row_len` values
/// that cost about `row_work` operations each, cut into blocks of whole rows: all of it in one
/// block on the calling thread below the rule's work (handing even one task to the pool wakes a
/// worker and puts the caller to sleep), else rayon tasks of [`chunk_len`] rows. Each row is
/// in one block, so what the blocks write does not depend on the thread count.
pub fn for_row_blocks<T: Send>(
    out: &mut [T],
    row_len: usize,
    row_work: usize,
    block: impl Fn(usize, &mut [T]) + Sync,
) {
    use rayon::prelude::*;
    let row_len = row_len.max(1);
    let n = out.len() / row_len;
    if should_split(n.saturating_mul(row_work), Overhead::Loop) {
        let rows = chunk_len(n, row_work);
        out.par_chunks_mut(rows * row_len)
            .enumerate()
            .for_each(|(task, chunk)| block(task * rows, chunk));
    } else {
        block(0, out);
    }
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

    /// Writes each row's index into its 3 values; returns the buffer and the blocks' first rows.
    fn blocks_of(threads: usize, n: usize, row_work: usize) -> (Vec<usize>, Vec<usize>) {
        in_pool(threads, || {
            let firsts = std::sync::Mutex::new(Vec::new());
            let mut out = vec![0; 3 * n];
            for_row_blocks(&mut out, 3, row_work, |first, rows| {
                firsts.lock().unwrap().push(first);
                for (r, row) in rows.chunks_exact_mut(3).enumerate() {
                    row.fill(first + r);
                }
            });
            let mut firsts = firsts.into_inner().unwrap();
            firsts.sort_unstable();
            (out, firsts)
        })
    }

    #[test]
    fn row_blocks_are_one_block_below_the_rule_and_tasks_of_chunk_len_rows_above() {
        let rows = |n: usize| (0..n).flat_map(|i| [i; 3]).collect::<Vec<_>>();
        // Below the rule's work: one block from row 0, whatever the pool.
        assert_eq!(blocks_of(2, 1000, 1), (rows(1000), vec![0]));
        assert_eq!(blocks_of(2, 0, 1), (vec![], vec![0]));
        // Above it: tasks of `chunk_len` rows on two threads, one block on one, same rows.
        let (n, work) = (40_000, 16);
        let (split, firsts) = blocks_of(2, n, work);
        let len = in_pool(2, || chunk_len(n, work));
        assert_eq!(firsts, (0..n).step_by(len).collect::<Vec<_>>());
        assert!(firsts.len() > 1);
        assert_eq!(split, rows(n));
        assert_eq!(blocks_of(1, n, work), (rows(n), vec![0]));
    }
}
