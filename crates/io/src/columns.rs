//! Naming a file's columns: which are the features, which is the label, and what a null is.

use crate::LabelColumn;

/// What to do with a null in a feature column of a Parquet or Arrow table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Nulls {
    /// Refuse it, naming the column and the row (the default).
    #[default]
    Refuse,
    /// Read it as NaN: a missing value, for the models that take them.
    AsNan,
}

/// Which columns of a table (Parquet, Arrow IPC, or CSV with a header) are the features and
/// which the label. LIBSVM files have no named columns: they take only the default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableColumns {
    /// The label column ([`LabelColumn::Last`] by default; [`LabelColumn::None`] for data
    /// without one, whose targets are then all 0).
    pub label: LabelColumn,
    /// The feature columns by name, in this order; `None`: every numeric column but the label
    /// (CSV: every column but the label), or else a table's one list column.
    pub features: Option<Vec<String>>,
    /// Nulls in a table's feature columns (CSV refuses empty fields whatever this says).
    pub nulls: Nulls,
}

/// A column of a table left out of the features because it holds no numbers (text, dates,
/// structs, …): reported so that a reader can say which columns it skipped and why, since the
/// features were chosen by default rather than named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedColumn {
    /// The column's name.
    pub name: String,
    /// What it holds: its Arrow type, as Arrow prints it (`Utf8`, `Date32`, `Struct(…)`).
    pub holds: String,
}
