//! # margin-datafusion: margin's models on Apache DataFusion
//!
//! Fits margin models where the data already is: in Parquet files, Arrow tables or any query
//! DataFusion runs, in one streaming pass over the rows, partitions in parallel, the table never
//! held in memory. [`register`] adds to a [`SessionContext`]:
//!
//! - **`margin_fit(kind, params, [label,] feature, …)`**, an aggregate function returning the
//!   fitted model's file (`Binary`): the bytes `Model::from_bytes` reads and `margin predict`
//!   takes once written to disk. It works for the models whose fit is a sum over the rows
//!   ([`FitStats`](margin_core::FitStats)): `linear-regression`, `ridge`, `gaussian-nb`,
//!   `multinomial-nb`, `bernoulli-nb` (after the label), and `pca`, `standard-scaler`,
//!   `min-max-scaler` (features only). Each partition gathers the statistics of its rows; the
//!   partitions' states merge exactly (counts) or to rounding (means, triangular factors), so
//!   the model is the in-memory fit's. `GROUP BY` fits one model per group.
//!
//! The parameters are `name=value` pairs separated by spaces, each as `margin train` takes it
//! (`'alpha=0.5 fit_intercept=false'`); `''` keeps the defaults. Features are numeric columns
//! of any integer or float type, or one `FixedSizeList<Float64>` column (as `margin_io::table`
//! reads them). A null feature is refused, naming the column. Sparse `List<Struct<index,
//! value>>` columns are not taken yet: a batch's width would be its own largest index.
//!
//! ```
//! use datafusion::prelude::*;
//! use margin_core::Fit;
//! use margin_io::ModelFile;
//! use margin_linear::Ridge;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = SessionContext::new();
//! margin_datafusion::register(&ctx);
//! let fitted = ctx
//!     .sql("SELECT margin_fit('ridge', 'alpha=0.5', y, x1, x2) FROM (VALUES
//!             (1.0, 0.0, 1.0), (2.1, 1.0, 0.5), (4.9, 2.0, 2.0), (5.2, 3.0, 1.0), (8.8, 4.0, 3.5)
//!           ) AS t(y, x1, x2)")
//!     .await?
//!     .collect()
//!     .await?;
//! let bytes = fitted[0].column(0).as_any()
//!     .downcast_ref::<datafusion::arrow::array::BinaryArray>().unwrap().value(0);
//! let model = Ridge::from_bytes(bytes)?;
//!
//! let x = vec![vec![0.0, 1.0], vec![1.0, 0.5], vec![2.0, 2.0], vec![3.0, 1.0], vec![4.0, 3.5]];
//! let data = margin_core::Dataset::regression(x, vec![1.0, 2.1, 4.9, 5.2, 8.8])?;
//! let same = Ridge::params().alpha(0.5).fit(&data)?;
//! assert!((model.intercept()[0] - same.intercept()[0]).abs() < 1e-12);
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod fit;
mod gather;

use datafusion::common::DataFusionError;
use datafusion::logical_expr::AggregateUDF;
use datafusion::prelude::SessionContext;

pub use fit::MarginFit;
pub use gather::KINDS;

/// Registers margin's functions (`margin_fit`) with `ctx`.
pub fn register(ctx: &SessionContext) {
    ctx.register_udaf(margin_fit());
}

/// The `margin_fit` aggregate function, for registries other than a [`SessionContext`]'s.
pub fn margin_fit() -> AggregateUDF {
    AggregateUDF::from(MarginFit::default())
}

/// A margin error as DataFusion's, its message kept.
fn external(e: margin_core::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
